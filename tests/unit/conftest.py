"""The unit tier needs no Java, Node or browser: a unit test that asks for DynamoDB Local fails at once."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def dynamodb_local() -> None:
    pytest.fail("a unit test may not start DynamoDB Local: move it to tests/integration")
