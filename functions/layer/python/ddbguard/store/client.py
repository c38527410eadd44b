"""The one DynamoDB client and table name every operation uses."""

from __future__ import annotations

import os
from functools import lru_cache
from typing import TYPE_CHECKING

import boto3
from botocore.config import Config

from ddbguard.snapshot_hooks import after_restore
from ddbguard.store import call_log
from ddbguard.store.transient import CLIENT_RETRIES

if TYPE_CHECKING:  # the stubs package is optional; the annotation is for readers and IDEs
    from mypy_boto3_dynamodb import DynamoDBClient

__all__ = ["DEFAULT_READ_TIMEOUT_S", "READ_TIMEOUT_VARIABLE", "client", "table_name"]

# botocore retries throttling and connection errors itself (the one policy: ddbguard.store.transient);
# transaction conflicts are retried by ddbguard.store.writes, which knows the request is safe to repeat.
# DynamoDB answers in milliseconds; 5 s without an answer is a stuck connection worth retrying. The variable is for
# DynamoDB Local on a busy machine (local/runtime_env.py), where seconds are only load, not a fault.
READ_TIMEOUT_VARIABLE = "DDBGUARD_DYNAMODB_READ_TIMEOUT_S"
DEFAULT_READ_TIMEOUT_S = 5.0


def _client_config() -> Config:
    return Config(
        retries=CLIENT_RETRIES,
        connect_timeout=2,
        read_timeout=float(os.environ.get(READ_TIMEOUT_VARIABLE, DEFAULT_READ_TIMEOUT_S)),
        max_pool_connections=64,
    )


def table_name() -> str:
    return os.environ["TABLE_NAME"]


@lru_cache(maxsize=1)
def client() -> DynamoDBClient:
    """A low-level client (transactions need it); endpoint from AWS_ENDPOINT_URL_DYNAMODB when set. Its calls are
    counted per request and logged at DEBUG (ddbguard.store.call_log)."""
    made = boto3.session.Session().client("dynamodb", config=_client_config())
    call_log.attach(made)
    return made


# Restored from a SnapStart snapshot: the snapshot's connections and credentials are not this environment's.
after_restore(client.cache_clear)
