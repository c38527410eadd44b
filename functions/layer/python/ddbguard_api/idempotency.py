"""Powertools idempotency around an operation: one persistence layer per function, keyed by caller + route + key.

The persistence set-up takes ddbguard's own storage client and table openly (`ddbguard.store.client`):
Powertools writes its records into the same table, under `IDEMPOTENCY#<operation>`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer, IdempotencyConfig, idempotent_function

from ddbguard.store.client import client, table_name
from ddbguard.store.schema import PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE
from ddbguard_api.request import Request

IDEMPOTENCY_TTL_S = 24 * 3600
Execute = Callable[[Request[Any]], dict[str, Any]]


class IdempotentExecution:
    """`run(request, execute)`: the first request with a key executes and is recorded; repeats get the record."""

    def __init__(self, operation: str, execute: Execute):
        # One persistence layer per function: a shared instance keeps the first function's config.
        self.persistence = DynamoDBPersistenceLayer(
            table_name=table_name(),
            key_attr=PARTITION_KEY,
            sort_key_attr=SORT_KEY,
            static_pk_value=f"IDEMPOTENCY#{operation}",
            expiry_attr=TTL_ATTRIBUTE,
            boto3_client=client(),
        )
        self.config = IdempotencyConfig(
            # The key is built in code (caller + route + header, header read case-insensitively),
            # so JMESPath only picks it out of the data we hand over.
            event_key_jmespath="key",
            payload_validation_jmespath="fingerprint",
            raise_on_no_idempotency_key=True,
            expires_after_seconds=IDEMPOTENCY_TTL_S,
        )

        def recorded(data: dict[str, Any], request: Request[Any]) -> dict[str, Any]:
            return execute(request)

        self._run = idempotent_function(
            data_keyword_argument="data",
            persistence_store=self.persistence,
            config=self.config,
            key_prefix=operation,
        )(recorded)

    def register_lambda_context(self, context: Any) -> None:
        # In-progress records expire with this invocation, not after the default hour.
        self.config.register_lambda_context(context)

    def run(self, request: Request[Any]) -> dict[str, Any]:
        identity = request.identity
        assert identity is not None and request.idempotency_key is not None
        data = {
            "key": f"{identity.caller}\x1f{identity.route}\x1f{request.idempotency_key}",
            "fingerprint": identity.fingerprint,
        }
        return self._run(data=data, request=request)
