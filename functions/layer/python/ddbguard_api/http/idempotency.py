"""A per-environment replay cache with a payload check, over Powertools idempotency; the durable record of a
request is the operation's own write.

Powertools' `idempotent_function` wraps every POST / PATCH / DELETE that carries an Idempotency-Key,
keyed by caller + route + header, with payload validation on the request's fingerprint
(`RequestIdentity.fingerprint`, the one definition of "the same request"). What it does here:

- its local cache: a completed response stays in the execution environment's memory, so a retry that
  lands on the same warm environment is answered from there without a DynamoDB call, and the same key
  with another fingerprint fails Powertools' payload validation (422 `idempotency_key_reused`);
- a refusal or a failure raises through it, so it keeps nothing and a retry decides afresh.

Its persistence layer makes no DynamoDB call: the durable record of a write is the request marker (or
the update stamp) that the write puts in its own transaction (`ddbguard.guards.replays`). A retry on
another environment is stopped by that write and answered from the marker's ALL_OLD image: one call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyItemNotFoundError,
    IdempotencyValidationError,
)
from aws_lambda_powertools.utilities.idempotency.persistence.base import BasePersistenceLayer, DataRecord

from ddbguard.guards import replays
from ddbguard.observability import MetricName, count
from ddbguard_api.http.problems import EdgeError
from ddbguard_api.http.replies import REPLAYED_HEADER, add_header
from ddbguard_api.http.request import AnyRequest

if TYPE_CHECKING:
    from ddbguard_api.http.proxy_events import ProxyResponse

__all__ = ["IDEMPOTENCY_TTL_S", "EnvironmentReplayCache", "Execute", "InTransactionPersistenceLayer"]

IDEMPOTENCY_TTL_S = 24 * 3600
type Execute = Callable[[AnyRequest], ProxyResponse]


class InTransactionPersistenceLayer(BasePersistenceLayer):
    """Powertools' record store, whose durable records are the request markers of the writes themselves."""

    def __init__(self, operation: str):
        super().__init__()
        self.operation = operation

    def _put_record(self, data_record: DataRecord) -> None:
        """Before the operation (INPROGRESS): writes nothing. The operation's transaction puts the request
        marker with attribute_not_exists: that is the durable claim on the key, and a twin running on
        another environment is stopped there and answered from the marker."""

    def _get_record(self, idempotency_key: str) -> DataRecord:
        """Asked only after `_put_record` reported an existing record, which it never does: Powertools finds
        a completed record in its local cache before asking here, and nothing durable is read."""
        raise IdempotencyItemNotFoundError(idempotency_key)

    def _update_record(self, data_record: DataRecord) -> None:
        """After success (COMPLETED): writes nothing, the marker committed with the effect and holds the
        response. Powertools then keeps `data_record` in this environment's local cache."""

    def _delete_record(self, data_record: DataRecord) -> None:
        """After a refusal or a failure: deletes nothing, the failed write wrote no marker. Powertools drops
        the key from its local cache."""


def _replayed(response: Any, idempotent_data: DataRecord) -> Any:
    """Powertools' response hook: a response from its local cache (a response dict) is the first one, given again."""
    count(MetricName.REPLAY)
    return add_header(response, REPLAYED_HEADER, "true")


class EnvironmentReplayCache:
    """`run(request)`: the operation's proxy response, or the one this execution environment already gave for the
    same caller + route + key (Powertools idempotency's local cache); the same key with another request is refused.
    Only a warm retry is answered here: any other retry reaches the operation, whose write finds its marker."""

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
            use_local_cache=True,
            response_hook=_replayed,
        )

        def recorded(data: dict[str, str], request: AnyRequest) -> ProxyResponse:
            replays.begin_request()
            response = execute(request)
            # The write found this key's request marker: the response is the first one, rebuilt from it.
            return add_header(response, REPLAYED_HEADER, "true") if replays.was_replayed() else response

        self._run = idempotent_function(
            data_keyword_argument="data",
            persistence_store=self.persistence,
            config=self.config,
            key_prefix=operation,
        )(recorded)

    def register_lambda_context(self, context: Any) -> None:
        self.config.register_lambda_context(context)

    def run(self, request: AnyRequest) -> ProxyResponse:
        """The operation's response (given again from the local cache on a warm retry). A domain refusal or
        Busy raised by the operation goes through Powertools, which then keeps nothing for the key."""
        identity = request.identity
        assert identity is not None and request.idempotency_key is not None
        data = {
            "key": f"{identity.caller}\x1f{identity.route}\x1f{request.idempotency_key}",
            "fingerprint": identity.fingerprint,
        }
        try:
            return self._run(data=data, request=request)
        except IdempotencyValidationError:  # this environment answered the key for another fingerprint
            raise EdgeError(
                422, "idempotency_key_reused", "This Idempotency-Key was already used with a different request."
            ) from None
