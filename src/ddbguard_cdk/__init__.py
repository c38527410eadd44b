"""ddbguard_cdk: the AWS CDK side of ddbguard, for a team's own stack and for the product's (infra/)."""
