"""CDK v2 infrastructure of ddbguard. It imports nothing of the runtime code but `functions/routes/`."""
