#!/usr/bin/env python3
"""The projects service's CDK app: its API in front of one function, on ddbguard's `GuardedTable`, checked by
cdk-nag (an unacknowledged finding fails synthesis). `cdk.json` runs it with this folder's venv and `src/` on the path.
"""

from pathlib import Path

from aws_cdk import Acknowledgment, App, RemovalPolicy, Stack, Validations
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cognito as cognito
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from cdk_nag import AwsSolutionsChecks
from constructs import Construct

from ddbguard_cdk import GuardedTable
from service.project import PROJECT

CODE = Path(__file__).resolve().parent / "src"


class ProjectsStack(Stack):
    def __init__(self, scope: Construct, construct_id: str, *, user_pool_arn: str) -> None:
        super().__init__(scope, construct_id)
        # The guards for the one entity: the table and its jobs, and one function allowed exactly its routes' access,
        # behind the API (every path to it: Powertools routes them).
        code = lambda_.Code.from_asset(str(CODE), exclude=["__pycache__", "*.pyc"])
        guarded = GuardedTable(self, "Guarded", code=code, entity_modules=["service.project"])
        function = guarded.add_function(self, "ProjectsApi", handler="service.api.handler", entities=[PROJECT])
        self._api(function, user_pool_arn)

    def _api(self, function: lambda_.IFunction, user_pool_arn: str) -> apigw.LambdaRestApi:
        """The team's API as it already is: Cognito on every method, access and error logs (not entity-specific)."""
        users = cognito.UserPool.from_user_pool_arn(self, "Users", user_pool_arn)
        access_logs = logs.LogGroup(self, "AccessLogs", removal_policy=RemovalPolicy.DESTROY)
        api = apigw.LambdaRestApi(
            self,
            "Api",
            handler=function,
            cloud_watch_role=True,
            deploy_options=apigw.StageOptions(
                access_log_destination=apigw.LogGroupLogDestination(access_logs),
                access_log_format=apigw.AccessLogFormat.json_with_standard_fields(
                    caller=False,
                    http_method=True,
                    ip=False,
                    protocol=True,
                    request_time=True,
                    resource_path=True,
                    response_length=True,
                    status=True,
                    user=True,
                ),
                logging_level=apigw.MethodLoggingLevel.ERROR,
                tracing_enabled=True,
                throttling_rate_limit=100,
                throttling_burst_limit=200,
            ),
            default_method_options=apigw.MethodOptions(
                authorizer=apigw.CognitoUserPoolsAuthorizer(self, "Authorizer", cognito_user_pools=[users]),
                authorization_type=apigw.AuthorizationType.COGNITO,
            ),
        )
        Validations.of(api).acknowledge(
            Acknowledgment(
                id="AwsSolutions-APIG2",
                reason="Bodies and headers are validated by the handlers, "
                "which answer with problem details (422 field errors, 428).",
            ),
            Acknowledgment(
                id="AwsSolutions-APIG3",
                reason="The example has no WAF; a team's stack puts its own web ACL in front of its stage.",
            ),
            Acknowledgment(
                id="AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
                "AmazonAPIGatewayPushToCloudWatchLogs]",
                reason="The account-level role API Gateway writes execution logs with; AWS's managed policy is the "
                "documented way to grant it.",
            ),
        )
        return api


app = App()
Validations.of(app).add_plugins(AwsSolutionsChecks(app, verbose=True))
ProjectsStack(app, "ProjectsService", user_pool_arn=app.node.get_context("userPoolArn"))
app.synth()
