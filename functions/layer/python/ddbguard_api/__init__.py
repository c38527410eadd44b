"""The HTTP edge shared by every handler: API Gateway events in, problem+json and ETags out.

ddbguard (the integrity core) knows nothing of HTTP; this package knows nothing of DynamoDB.
"""
