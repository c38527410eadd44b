"""Session fixtures: one private DynamoDB Local (in memory, free port) for the whole run.

Every test makes its own ids and values, so tests never see each other's data and two
`make test` runs (or a `make run`) never share a port or a table.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from local.api_client import ApiClient
from local.dynamodb_local import DynamoDBLocal, local_client
from local.runtime_env import configure
from local.stream_settler import StreamSettler
from local.table import ensure_table
from tests.support import browser, progress, scheduling, settlement, tiers, whole_suite, worker_timeline
from tests.support.table_access import SESSION_LOG

# Tests wait for events, never for a clock: no per-example deadline and no "generation too slow" check, which a
# loaded 2-core machine would trip on correct code. A test's own @settings still adds to this profile.
settings.register_profile("ddbguard", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ddbguard")

TABLE = "ddbguard-test"


def pytest_addoption(parser: pytest.Parser) -> None:
    whole_suite.add_option(parser)
    tiers.add_option(parser)


def pytest_configure(config: pytest.Config) -> None:
    progress.register(config)  # elapsed time and an estimate in place of pytest's count-based percentage
    whole_suite.register(config)  # the whole-suite checks last, or in make test's second run (pytest-xdist)
    tiers.register(config)  # which tier ran, and which was skipped for want of what (the browser)
    scheduling.register(config)  # pytest-xdist: whole modules, the CDK and `make run` modules grouped, longest first
    worker_timeline.register(config)  # pytest-xdist: which worker ran what, and when each ended
    config.addinivalue_line("markers", f"{browser.MARKER}: drives headless Chromium (the browser tier)")


@pytest.fixture(scope="session")
def dynamodb_local() -> Iterator[DynamoDBLocal]:
    with DynamoDBLocal() as database:
        configure(database.endpoint, TABLE)
        ensure_table(local_client(database.endpoint), TABLE)
        settlement.use(StreamSettler(database.endpoint, TABLE, local_client(database.endpoint, timeout=120)))
        from ddbguard.store.client import client

        SESSION_LOG.attach(client())  # every call each function makes (tests/test_table_access.py)
        yield database


@pytest.fixture(scope="session")
def ddb_client(dynamodb_local: DynamoDBLocal):
    """ddbguard's own client (the one the handlers use): count its calls, inject its faults."""
    from ddbguard.store.client import client

    return client()


@pytest.fixture(scope="session")
def raw_client(dynamodb_local: DynamoDBLocal):
    """A separate client for test assertions, so counting ddbguard's calls is not disturbed."""
    return local_client(dynamodb_local.endpoint, timeout=120)


@pytest.fixture(scope="session")
def api(dynamodb_local: DynamoDBLocal) -> ApiClient:
    return ApiClient()


@pytest.fixture(scope="session")
def local_server(dynamodb_local: DynamoDBLocal) -> Iterator[str]:
    from local.server import LocalApiServer

    server = LocalApiServer("127.0.0.1", 0, quiet=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    yield server.url
    server.shutdown()
    server.server_close()


@pytest.fixture
def uid() -> str:
    """A short unique suffix for this test's values."""
    return uuid.uuid4().hex[:12]
