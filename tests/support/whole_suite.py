"""Checks over the whole run (tests/test_table_access.py), with or without pytest-xdist.

They judge every DynamoDB call the run made, so they must come after every other test. In one process, conftest
orders them last and they read the session's log (tests/support/table_access.py). With pytest-xdist each worker
has its own DynamoDB Local and its own log, and no test can be ordered after the others: so the workers send
their logs to the controller (xdist's `workeroutput`), which writes one record of the run to the path given with
`--suite-record`, and `make test` runs the checks in a second pytest run on that record (tests/suite.py,
`DDBGUARD_SUITE_RECORD`). A run given `--suite-record` leaves the checks out, for that second run.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from tests.support.table_access import SESSION_LOG, TableAccessLog

RECORD_OPTION = "--suite-record"
RECORD_VARIABLE = "DDBGUARD_SUITE_RECORD"
CHECKS = ("test_table_access.py",)  # file names of the whole-suite checks
_OUTPUT_KEY = "ddbguard_table_access"


class Record(NamedTuple):
    """What the checks judge: the calls, and whether they are the whole suite's with no test failed."""

    log: TableAccessLog
    whole_suite: bool
    failed: int


def is_check(item: pytest.Item) -> bool:
    return item.path.name in CHECKS


def whole_suite(config: pytest.Config) -> bool:
    """Whether this run is the whole suite (plain `pytest`/`make test`): only then can a grant be called unused."""
    return (
        config.args_source == pytest.Config.ArgsSource.TESTPATHS
        and not config.option.keyword
        and not config.option.markexpr
        and not config.option.deselect
    )


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _recording(config: pytest.Config) -> Path | None:
    path = config.getoption(RECORD_OPTION, default=None)
    return Path(path) if path else None


def read_record() -> Record | None:
    """The record `make test`'s first run wrote, when this is its second run; None otherwise."""
    path = os.environ.get(RECORD_VARIABLE)
    if not path:
        return None
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    log = TableAccessLog()
    log.merge(data["observed"], data["operations"])
    return Record(log, bool(data["whole_suite"]), int(data["failed"]))


def _refuse_shared_node_ids(items: list[pytest.Item]) -> None:
    """pytest-xdist schedules by node id: of items sharing one, only the first would run, the rest dropped unseen."""
    counted = Counter(item.nodeid for item in items)
    shared = sorted(nodeid for nodeid, times in counted.items() if times > 1)
    if shared:
        raise pytest.UsageError(f"node ids shared by several tests (pytest-xdist would run one of each): {shared[:5]}")


class WholeSuitePlugin:
    """Registered in every process of a run (tests/conftest.py)."""

    def __init__(self, config: pytest.Config):
        self.config = config
        self.merged = TableAccessLog()  # the controller's: every worker's log

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, items: list[pytest.Item]) -> None:
        _refuse_shared_node_ids(items)
        checks = [item for item in items if is_check(item)]
        others = [item for item in items if not is_check(item)]
        if checks and (_is_worker(self.config) or _recording(self.config)):
            # A worker's checks would judge its own share of the calls: the second run judges them all.
            self.config.hook.pytest_deselected(items=checks)
            items[:] = others
            return
        items[:] = others + checks  # one process: the checks after every other test

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if _is_worker(self.config):
            self.config.workeroutput[_OUTPUT_KEY] = {  # type: ignore[attr-defined]
                "observed": SESSION_LOG.as_json(),
                "operations": sorted(SESSION_LOG.operations),
            }
            return
        path = _recording(self.config)
        if path is None:
            return
        if not self.merged.observed:  # no workers: this process made the calls itself
            self.merged.merge(SESSION_LOG.as_json(), SESSION_LOG.operations)
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {
            "whole_suite": whole_suite(self.config),
            "failed": session.testsfailed,
            "observed": self.merged.as_json(),
            "operations": sorted(self.merged.operations),
        }
        path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """pytest-xdist's controller: a worker finished; keep its calls."""
        sent = getattr(node, "workeroutput", {}).get(_OUTPUT_KEY)
        if sent:
            self.merged.merge(sent["observed"], sent["operations"])


def add_option(parser: pytest.Parser) -> None:
    parser.addoption(
        RECORD_OPTION,
        default=None,
        help="write the run's DynamoDB calls here and leave the whole-suite checks to a second run (make test)",
    )


def register(config: pytest.Config) -> None:
    config.pluginmanager.register(WholeSuitePlugin(config), "ddbguard-whole-suite")
