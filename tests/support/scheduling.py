"""How `make test` shares the work among pytest-xdist workers: whole modules, and a few groups of modules.

A worker runs a module whole, so a module's fixtures are built once (xdist's `loadscope`). Some session fixtures
are dear and shared by many modules: the synthesized stack and the CDK libraries' jsii runtime (every module of
tests/infra/), and a real `make run` with its seeded demo world (tests/http/conftest.py's `demo_service`). Sent to
two workers, those modules would build them twice; grouped, one worker builds each once, while the other worker
takes the remaining modules one at a time, so the load still evens out. A module not named here is its own unit.
"""

from __future__ import annotations

from typing import Any

import pytest
from xdist.scheduler import LoadScopeScheduling

# Path prefix of a test module -> the unit it joins.
GROUPS = {
    "tests/infra/": "cdk: the synthesized stacks, cdk-nag, cfn-lint",
    "tests/http/test_walkthrough.py": "make run: the seeded demo world",
    "tests/http/test_browse.py": "make run: the seeded demo world",
    "tests/http/test_demo_script.py": "make run: the seeded demo world",
    "tests/http/test_run_terminal.py": "make run: the seeded demo world",
}


def unit_of(nodeid: str) -> str:
    module = nodeid.split("::", 1)[0]
    return next((group for prefix, group in GROUPS.items() if module.startswith(prefix)), module)


class ModulesAndGroups(LoadScopeScheduling):
    """xdist's `loadscope` with the units above: a test's unit is its group, or else its module."""

    def _split_scope(self, nodeid: str) -> str:
        return unit_of(nodeid)


class SchedulingPlugin:
    @pytest.hookimpl(tryfirst=True, optionalhook=True)  # before xdist's own, which would answer first
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> LoadScopeScheduling | None:
        if config.getvalue("dist") != "loadscope":
            return None  # another --dist asked for on the command line: xdist's own
        return ModulesAndGroups(config, log)


def register(config: pytest.Config) -> None:
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(SchedulingPlugin(), "ddbguard-scheduling")
