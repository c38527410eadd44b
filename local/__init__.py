"""Local stand-ins for the cloud: DynamoDB Local, the API Gateway proxy, the Cognito authorizer."""

from local.paths import add_runtime_to_path

add_runtime_to_path()
