"""The single DynamoDB table every item kind lives in (docs/data-model.md)."""

from __future__ import annotations

from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_kms as kms
from constructs import Construct

from infra import constants, settings


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
        self.table = dynamodb.Table(
            self,
            "Table",
            partition_key=dynamodb.Attribute(name=constants.PK, type=dynamodb.AttributeType.STRING),
            sort_key=dynamodb.Attribute(name=constants.SK, type=dynamodb.AttributeType.STRING),
            # Pay per request: the demo's traffic is bursty and mostly idle.
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True,
            ),
            time_to_live_attribute=constants.EXPIRATION,
            # Keys only: the settlement function reads each new ledger entry by key (small records, and no item
            # content, personal data included, copied into the stream).
            stream=dynamodb.StreamViewType.KEYS_ONLY,
            # Ledger entries are money records: neither `cdk destroy` nor a console click may delete them. Retained
            # except on create: a first deploy that rolls back removes the (still empty) table instead of orphaning it,
            # which DynamoDB allows only without deletion protection, so the first deploy creates it unprotected and
            # `make deploy` turns protection on right after
            # (docs/decisions/048-a-first-deploy-that-fails-leaves-nothing-behind.md).
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
            deletion_protection=settings.flag(self, settings.DELETION_PROTECTION),
            encryption=dynamodb.TableEncryption.CUSTOMER_MANAGED if self.key else dynamodb.TableEncryption.DEFAULT,
            encryption_key=self.key,
            # Off by default (docs/infra.md, "Contributor Insights"): billed per event read or written, about as much
            # as the table's own requests at volume; the runbook turns it on for the hour a hot key is hunted.
            contributor_insights_specification=dynamodb.ContributorInsightsSpecification(enabled=True)
            if settings.flag(self, settings.CONTRIBUTOR_INSIGHTS)
            else None,
        )
        # Sparse: only balances whose `pending` is non-empty carry its keys, so the sweeper's Query reads what waits
        # for settlement, not the table; keys only, the sweeper needs nothing else. Written when a balance starts or
        # stops waiting, never by a movement on a balance that already waits (its index keys do not change).
        self.table.add_global_secondary_index(
            index_name=constants.UNSETTLED_INDEX,
            partition_key=dynamodb.Attribute(name=constants.UNSETTLED_SHARD, type=dynamodb.AttributeType.STRING),
            sort_key=dynamodb.Attribute(name=constants.UNSETTLED_SINCE, type=dynamodb.AttributeType.STRING),
            projection_type=dynamodb.ProjectionType.KEYS_ONLY,
        )
