"""Roles an on-call engineer assumes for an operation the API does not offer them (docs/operations.md).

`LockRemedyRole`: `make lock-remedy` changes an account's email or username on its owner's behalf when the lock
audit found two accounts claiming one value (scripts/lock_remedy.py). The API lets only an account's owner change
it, so the remedy runs with this role: exactly the table actions of that change (`LOCK_REMEDY_TABLE_ACCESS`, each
limited to the partitions it reaches), assumable by principals of the stack's own account that signed in with MFA
(and whose own policies allow `sts:AssumeRole` on it). Its use is in CloudTrail under its session name.
"""

from __future__ import annotations

from aws_cdk import Duration
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from constructs import Construct

from ddbguard_cdk.grants import table_statements
from routes.job_access import LOCK_REMEDY_TABLE_ACCESS


class OperatorRoles(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, table: dynamodb.ITable) -> None:
        super().__init__(scope, construct_id)
        self.lock_remedy = iam.Role(
            self,
            "LockRemedyRole",
            assumed_by=iam.AccountRootPrincipal().with_conditions({"Bool": {"aws:MultiFactorAuthPresent": "true"}}),
            description="ddbguard on-call: change an account's email or username on its owner's behalf (lock remedy)",
            max_session_duration=Duration.hours(1),
        )
        for statement in table_statements(LOCK_REMEDY_TABLE_ACCESS, table.table_arn):
            self.lock_remedy.add_to_policy(statement)
