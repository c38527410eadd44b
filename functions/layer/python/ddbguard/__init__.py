"""ddbguard: data-integrity primitives for a single DynamoDB table.

Uniqueness (lock items in one transaction), condition-expression guards and optimistic
locking. Knows DynamoDB and the domain; knows nothing of HTTP.
"""
