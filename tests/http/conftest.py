"""One real `make run` for the tool tests (walk-through, browser, demo.sh), started once per session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.http.running_service import RunningService, running_service


@pytest.fixture(scope="session")
def demo_service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningService]:
    with running_service(tmp_path_factory.mktemp("make-run")) as service:
        yield service
