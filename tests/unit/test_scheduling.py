"""`make test`'s scheduler hands out its units (modules, and the infra and `make run` groups) longest first."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from tests.support.makespan import by_test_count, makespan, simulate, units_of
from tests.support.scheduling import ModulesAndGroups, load_module_seconds, longest_first, unit_of, unit_weights

SECONDS = {
    "tests/unit/test_fast.py": 1.0,
    "tests/unit/test_medium.py": 3.0,
    "tests/api/test_cli_run.py": 60.0,
    "tests/infra/test_a.py": 20.0,
    "tests/infra/test_b.py": 25.0,
}
# Collected in this order: the many-test unit module first, the one-test long module last.
COLLECTION = [
    *(f"tests/unit/test_fast.py::test_{n}" for n in range(6)),
    "tests/infra/test_a.py::test_one",
    "tests/infra/test_a.py::test_two",
    "tests/infra/test_b.py::test_one",
    "tests/unit/test_medium.py::test_one",
    "tests/unit/test_new.py::test_one",
    "tests/api/test_cli_run.py::test_whole_cli",
]
CDK = unit_of("tests/infra/test_a.py::test_one")


class FakeWorker:
    """What the scheduler calls on a pytest-xdist worker: the test indexes it is sent."""

    def __init__(self, name: str) -> None:
        self.gateway = SimpleNamespace(id=name)
        self.sent: list[int] = []
        self.shutting_down = False

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.sent.extend(indexes)

    def shutdown(self) -> None:
        self.shutting_down = True


def _config(workers: int) -> Any:
    values = {"tx": [f"{workers}*popen"], "dist": "loadscope"}
    return SimpleNamespace(getvalue=values.__getitem__, option=SimpleNamespace(loadscopereorder=True))


def test_units_are_ordered_by_their_recorded_seconds_a_new_module_weighing_the_median():
    weights = unit_weights(COLLECTION, SECONDS)
    assert weights[CDK] == 45.0  # a group weighs all its modules
    assert weights["tests/unit/test_new.py"] == 20.0  # never recorded: the median of the five recorded
    units = list(dict.fromkeys(unit_of(n) for n in COLLECTION))
    assert longest_first(units, weights) == [
        "tests/api/test_cli_run.py",
        CDK,
        "tests/unit/test_new.py",
        "tests/unit/test_medium.py",
        "tests/unit/test_fast.py",
    ]
    assert longest_first(["b", "a"], {"a": 1.0, "b": 1.0}) == ["b", "a"]  # equal: collection order kept


def test_the_scheduler_sends_the_longest_unit_first_and_keeps_groups_on_one_worker():
    scheduler = ModulesAndGroups(_config(2), module_seconds=SECONDS)
    first, second = FakeWorker("gw0"), FakeWorker("gw1")
    for worker in (first, second):
        scheduler.add_node(worker)
        scheduler.add_node_collection(worker, COLLECTION)
    scheduler.schedule()
    # xdist's own order would send test_fast.py (6 tests) first and the 60 s one-test module last.
    assert first.sent[0] == COLLECTION.index("tests/api/test_cli_run.py::test_whole_cli")
    assert [COLLECTION[i] for i in second.sent[:3]] == [n for n in COLLECTION if n.startswith("tests/infra/")]
    assert "tests/infra/" not in "".join(COLLECTION[i] for i in first.sent)


def test_longest_first_predicts_a_shorter_run_than_xdists_order_on_the_same_durations():
    durations = {nodeid: SECONDS.get(nodeid.split("::")[0], 20.0) / 6 for nodeid in COLLECTION}
    durations["tests/api/test_cli_run.py::test_whole_cli"] = 60.0
    units = units_of(durations)
    weights = unit_weights(durations, SECONDS)
    ours = makespan(simulate(units, longest_first(list(units), weights), 2))
    theirs = makespan(simulate(units, by_test_count(units), 2))
    assert ours < theirs, (ours, theirs)
    assert ours >= sum(durations.values()) / 2  # no schedule beats perfect sharing


def test_the_committed_durations_are_seconds_per_test_module(tmp_path):
    recorded = load_module_seconds()
    assert recorded, "tests/data/test-durations.json: `make figures` writes it after a whole make test"
    assert all(m.startswith("tests/") and m.endswith(".py") and s >= 0 for m, s in recorded.items())
    assert load_module_seconds(tmp_path / "missing.json") == {}  # then every unit weighs the same
