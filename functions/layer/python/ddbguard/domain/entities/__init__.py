"""Entity declarations: one module per kind of item, importable without touching DynamoDB (the route table
reads them to derive IAM). Their rules beyond the declaration live in `ddbguard.domain`."""
