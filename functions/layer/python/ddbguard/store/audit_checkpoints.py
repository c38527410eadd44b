"""The lock audit's checkpoints, kept in the table: the run's Step Functions history carries only a random token.

A Scan resumes from its LastEvaluatedKey, the key of the last item it read, and that may be a lock whose key is
the value it protects (`UNIQ#EMAIL#<address>`). Carried through the state machine, it would sit in the execution's
history (kept 90 days, readable by anyone allowed to read executions): personal data where the product promises
none. So the worker keeps the key here, under a token drawn at random, and hands the state machine the token.

- One item per checkpoint (`AUDIT#<token>` / `CHECKPOINT`), put only where none is (a token never names two), read
  back with a consistent read; it expires a week later (`expiration`, the table's TTL), long after its run ended.
- A step retried with the same token reads the same key, so a retry resumes where its input says, as before.
- The lock audit's Scan filter names lock and entity items only, so checkpoints are never audited, and the
  settlement's stream filter (`TXN#` sort keys) never sees them.
"""

from __future__ import annotations

import re
import secrets
import time

from boto3.dynamodb.conditions import Attr

from ddbguard.store.attribute_names import EXPIRATION, KIND, PK, SK
from ddbguard.store.client import client, table_name
from ddbguard.store.expressions import condition_params
from ddbguard.store.segment_scan import WireKey
from ddbguard.store.transient import busy_when_transient

__all__ = [
    "CHECKPOINT_KIND",
    "CHECKPOINT_PREFIX",
    "CHECKPOINT_SORT",
    "KEPT_S",
    "START_KEY",
    "CheckpointNotFound",
    "checkpoint_partition",
    "load",
    "save",
]

CHECKPOINT_PREFIX = "AUDIT#"
CHECKPOINT_SORT = "CHECKPOINT"
CHECKPOINT_KIND = "auditCheckpoint"
START_KEY = "startKey"
# A run ends within a day (its state machine's timeout); a week leaves room to look at a failed one.
KEPT_S = 7 * 86_400
_TOKEN = re.compile(r"^[0-9a-f]{32}$")


class CheckpointNotFound(ValueError):
    """The token names no checkpoint: never saved here, or expired."""


def checkpoint_partition(token: str) -> str:
    return f"{CHECKPOINT_PREFIX}{token}"


def save(start_key: WireKey, *, now_s: float | None = None) -> str:
    """Keep `start_key`; returns the token that names it (32 hex digits, random: it says nothing of the key)."""
    token = secrets.token_hex(16)
    expires = int(time.time() if now_s is None else now_s) + KEPT_S
    item = {
        PK: {"S": checkpoint_partition(token)},
        SK: {"S": CHECKPOINT_SORT},
        KIND: {"S": CHECKPOINT_KIND},
        START_KEY: {"M": start_key},
        EXPIRATION: {"N": str(expires)},
    }
    with busy_when_transient(writes=True):
        client().put_item(
            TableName=table_name(),
            Item=item,  # type: ignore[arg-type]  # wire form: the stubs' AttributeValue union, same shape
            **condition_params(Attr(PK).not_exists()),
        )
    return token


def load(token: str) -> WireKey:
    """The key a token names (consistent read)."""
    if not isinstance(token, str) or not _TOKEN.match(token):
        raise CheckpointNotFound("checkpoint is not a token this audit made")
    with busy_when_transient(writes=False):
        found = client().get_item(
            TableName=table_name(),
            Key={PK: {"S": checkpoint_partition(token)}, SK: {"S": CHECKPOINT_SORT}},
            ConsistentRead=True,
        )
    item = found.get("Item")
    if item is None or START_KEY not in item:
        raise CheckpointNotFound(f"no checkpoint {token} (expired after {KEPT_S // 86_400} days, or never saved)")
    return dict(item[START_KEY]["M"])
