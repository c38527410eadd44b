"""The one table the guards write: `PK`/`SK` keys, the keys-only stream the settlement reads, TTL on the request
markers' `expiration`, and the sparse `unsettled` index of balances waiting for settlement (the sweeper's only read).
"""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_kms as kms
from constructs import Construct

from ddbguard.store.attribute_names import EXPIRATION, PK, SK, UNSETTLED_INDEX, UNSETTLED_SHARD, UNSETTLED_SINCE

__all__ = ["guarded_table"]


def guarded_table(
    scope: Construct,
    construct_id: str,
    *,
    deletion_protection: bool = True,
    removal_policy: RemovalPolicy = RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    encryption_key: kms.IKey | None = None,
    contributor_insights: bool = False,
) -> dynamodb.Table:
    """An on-demand table with point-in-time recovery, keyed and indexed as the guards need (docs/data-model.md)."""
    table = dynamodb.Table(
        scope,
        construct_id,
        partition_key=dynamodb.Attribute(name=PK, type=dynamodb.AttributeType.STRING),
        sort_key=dynamodb.Attribute(name=SK, type=dynamodb.AttributeType.STRING),
        # Pay per request: integrity traffic is bursty and mostly idle.
        billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
        point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
            point_in_time_recovery_enabled=True,
        ),
        time_to_live_attribute=EXPIRATION,
        # Keys only: the settlement function reads each new ledger entry by key (small records, and no item
        # content, personal data included, copied into the stream).
        stream=dynamodb.StreamViewType.KEYS_ONLY,
        # Ledger entries are money records: neither `cdk destroy` nor a console click may delete them. Retained
        # except on create: a first deploy that rolls back removes the (still empty) table instead of orphaning it.
        removal_policy=removal_policy,
        deletion_protection=deletion_protection,
        encryption=dynamodb.TableEncryption.CUSTOMER_MANAGED if encryption_key else dynamodb.TableEncryption.DEFAULT,
        encryption_key=encryption_key,
        # Billed per event read or written, about as much as the table's own requests at volume: off by default.
        contributor_insights_specification=dynamodb.ContributorInsightsSpecification(enabled=True)
        if contributor_insights
        else None,
    )
    # Sparse: only balances whose `pending` is non-empty carry its keys, so the sweeper's Query reads what waits
    # for settlement, not the table; keys only, the sweeper needs nothing else. Written when a balance starts or
    # stops waiting, never by a movement on a balance that already waits (its index keys do not change).
    table.add_global_secondary_index(
        index_name=UNSETTLED_INDEX,
        partition_key=dynamodb.Attribute(name=UNSETTLED_SHARD, type=dynamodb.AttributeType.STRING),
        sort_key=dynamodb.Attribute(name=UNSETTLED_SINCE, type=dynamodb.AttributeType.STRING),
        projection_type=dynamodb.ProjectionType.KEYS_ONLY,
    )
    return table
