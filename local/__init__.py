"""Local stand-ins for the cloud: DynamoDB Local, the API Gateway proxy, the Cognito authorizer.

The runtime code is importable because `make install` puts functions/ and the layer on the venv's
sys.path (a .pth file), as Lambda puts the function code and /opt/python there.
"""
