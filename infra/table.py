"""The single DynamoDB table every item kind lives in (docs/data-model.md)."""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from constructs import Construct

from infra import constants, settings


class Storage(Construct):
    """On-demand table keyed by `PK`/`SK`, with PITR, TTL and protection against accidental deletion."""

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id)
        self.table = dynamodb.Table(
            self,
            "Table",
            partition_key=dynamodb.Attribute(name=constants.PARTITION_KEY, type=dynamodb.AttributeType.STRING),
            sort_key=dynamodb.Attribute(name=constants.SORT_KEY, type=dynamodb.AttributeType.STRING),
            # Pay per request: the demo's traffic is bursty and mostly idle.
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True,
            ),
            time_to_live_attribute=constants.TTL_ATTRIBUTE,
            # Keys only: the settlement function reads each new ledger entry by key (small records, and no item
            # content, personal data included, copied into the stream).
            stream=dynamodb.StreamViewType.KEYS_ONLY,
            # Ledger entries are money records: neither `cdk destroy` nor a console click may delete them. Retained
            # except on create: a first deploy that rolls back removes the (still empty) table instead of orphaning it,
            # which DynamoDB allows only without deletion protection, so the first deploy creates it unprotected and
            # `make deploy` turns protection on right after (docs/decisions.md, "A first deploy that fails").
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
            deletion_protection=settings.flag(self, settings.DELETION_PROTECTION),
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
