"""Powertools idempotency around an operation, with the record inside the operation's own write.

Powertools' `idempotent_function` drives every POST / PATCH / DELETE that carries an
Idempotency-Key (key = caller + route + header, payload validation on the request's
fingerprint). Its persistence layer here, `InTransactionPersistenceLayer`, makes no DynamoDB call
of its own: the record of a write is the request marker (or the update stamp) that the write
puts in its own TransactWriteItems (`ddbguard.guards.replays`), so a retry is recognised by the
write itself and answered from the record's ALL_OLD image. No INPROGRESS put, no COMPLETED
update, and no "still in progress" answer for a request that has no twin.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function
from aws_lambda_powertools.utilities.idempotency.exceptions import IdempotencyItemNotFoundError
from aws_lambda_powertools.utilities.idempotency.persistence.base import BasePersistenceLayer, DataRecord

from ddbguard_api.request import Request

IDEMPOTENCY_TTL_S = 24 * 3600
Execute = Callable[[Request[Any]], dict[str, Any]]


class InTransactionPersistenceLayer(BasePersistenceLayer):
    """Records live in the business write (request markers); this layer keeps none of its own."""

    def __init__(self, operation: str):
        super().__init__()
        self.operation = operation

    def _get_record(self, idempotency_key: str) -> DataRecord:
        # Never reached: `_put_record` never reports an existing record, the write does.
        raise IdempotencyItemNotFoundError(idempotency_key)

    def _put_record(self, data_record: DataRecord) -> None:
        """The INPROGRESS record is the marker the operation's write puts (attribute_not_exists)."""

    def _update_record(self, data_record: DataRecord) -> None:
        """The COMPLETED record was written with the effect; the marker already holds the response."""

    def _delete_record(self, data_record: DataRecord) -> None:
        """A failed operation wrote nothing, its marker included: nothing to delete."""


class IdempotentExecution:
    """`run(request)`: the operation under Powertools idempotency, keyed by caller + route + key."""

    def __init__(self, operation: str, execute: Execute):
        # One persistence layer per function: a shared instance keeps the first function's config.
        self.persistence = InTransactionPersistenceLayer(operation)
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
        self.config.register_lambda_context(context)

    def run(self, request: Request[Any]) -> dict[str, Any]:
        identity = request.identity
        assert identity is not None and request.idempotency_key is not None
        data = {
            "key": f"{identity.caller}\x1f{identity.route}\x1f{request.idempotency_key}",
            "fingerprint": identity.fingerprint,
        }
        return self._run(data=data, request=request)
