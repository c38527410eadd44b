"""The HTTP edge shared by every handler: API Gateway events in, problem+json and ETags out.

ddbguard (the integrity core) knows nothing of HTTP; this package knows nothing of DynamoDB.

Install it with the `edge` extra (`pip install 'ddbguard[edge]'`): its request bodies need pydantic.
"""

__all__ = ["http", "models", "resolver"]
