"""The single DynamoDB table every item kind lives in (docs/data-model.md)."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_kms as kms
from constructs import Construct

from ddbguard_cdk.table import guarded_table
from infra import settings


class Storage(Construct):
    """On-demand table keyed by `PK`/`SK`, with PITR, TTL and protection against accidental deletion."""

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id)
        # A customer-managed key (optional): its every use is in CloudTrail and it can be revoked; the AWS-owned
        # default costs nothing and shows nothing. Retained: the table's backups need it as long as they are kept.
        self.key: kms.Key | None = None
        if settings.flag(self, settings.TABLE_CUSTOMER_KEY):
            self.key = kms.Key(
                self,
                "TableKey",
                description="Encrypts the ddbguard table and its backups",
                enable_key_rotation=True,
                removal_policy=RemovalPolicy.RETAIN,
                pending_window=Duration.days(30),
            )
        # The construct package's table (src/ddbguard_cdk/table.py), at this construct's id: its logical id stays.
        self.table = guarded_table(
            self,
            "Table",
            # First deploy: created unprotected, protected right after
            # (docs/decisions/048-a-first-deploy-that-fails-leaves-nothing-behind.md).
            deletion_protection=settings.flag(self, settings.DELETION_PROTECTION),
            encryption_key=self.key,
            # Off by default (docs/infra.md, "Contributor Insights"): the runbook turns it on for the hour a hot key
            # is hunted.
            contributor_insights=settings.flag(self, settings.CONTRIBUTOR_INSIGHTS),
        )
