"""How long run 1 of `make test` should take on N workers, from a run's per-test durations: xdist's order or ours.

    python -m tests.support.makespan [--workers N] [--durations .local/test-durations.json]

It replays pytest-xdist's `loadscope` handing-out with the recorded durations: every worker starts with a unit,
takes a second at once when its first has at most two tests left, and afterwards takes the next unit whenever at
most two of its tests are left (a worker runs a test only once it knows the next, so it always holds one unit
ahead). The orders compared: xdist's own (most tests first) and longest first by the committed module seconds
(tests/support/scheduling.py). What it leaves out: the workers' start (collection, DynamoDB Local), run 2, and
that durations measured with N workers change with another N on the same cores. So it compares orders on one
run's figures; it does not replace a measured run.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.progress import DEFAULT_DURATIONS, load_durations
from tests.support.scheduling import MODULE_DURATIONS, load_module_seconds, longest_first, unit_of, unit_weights

AHEAD = 2  # xdist's low-water mark: a worker with at most this many tests left gets its next unit


@dataclass
class Worker:
    clock: float = 0.0
    pending: list[float] = field(default_factory=list)
    units: list[str] = field(default_factory=list)


def units_of(durations: dict[str, float]) -> dict[str, list[float]]:
    """unit -> its tests' durations, units in the order of their first test."""
    units: dict[str, list[float]] = {}
    for nodeid, seconds in durations.items():
        units.setdefault(unit_of(nodeid), []).append(seconds)
    return units


def by_test_count(units: dict[str, list[float]]) -> list[str]:
    """xdist's `--loadscope-reorder` (its default): most tests first, equal counts in collection order."""
    return sorted(units, key=lambda unit: -len(units[unit]))


def simulate(units: dict[str, list[float]], order: list[str], workers: int) -> list[Worker]:
    queue = list(order)
    pool = [Worker() for _ in range(min(workers, len(queue)))]

    def hand_out(worker: Worker) -> None:
        unit = queue.pop(0)
        worker.pending.extend(units[unit])
        worker.units.append(unit)

    for worker in pool:
        hand_out(worker)
    for worker in pool:
        if queue and len(worker.pending) <= AHEAD:
            hand_out(worker)
    while any(worker.pending for worker in pool):
        worker = min((w for w in pool if w.pending), key=lambda w: w.clock)
        worker.clock += worker.pending.pop(0)
        if queue and len(worker.pending) <= AHEAD:
            hand_out(worker)
    return pool


def makespan(pool: list[Worker]) -> float:
    return max(worker.clock for worker in pool)


def report(name: str, pool: list[Worker]) -> str:
    ends = ", ".join(f"{w.clock:.0f} s (last: {w.units[-1]})" for w in pool)
    return f"{name}: {makespan(pool):.0f} s; each worker ends at {ends}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.support.makespan", description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--durations", type=Path, default=DEFAULT_DURATIONS, help="per-test seconds of a whole run")
    parser.add_argument("--modules", type=Path, default=MODULE_DURATIONS, help="per-module seconds the order uses")
    args = parser.parse_args(argv)
    durations = load_durations(args.durations)
    if not durations:
        print(f"no durations in {args.durations}: run `make test` first", file=sys.stderr)
        return 2
    units = units_of(durations)
    weights = unit_weights(durations, load_module_seconds(args.modules))
    orders: dict[str, Callable[[], list[str]]] = {
        "xdist's order (most tests first)": lambda: by_test_count(units),
        "longest first (committed module seconds)": lambda: longest_first(list(units), weights),
    }
    total = sum(sum(tests) for tests in units.values())
    shared = total / args.workers
    print(f"{len(durations)} tests in {len(units)} units, {total:.0f} s summed: {shared:.0f} s per worker")
    for name, order in orders.items():
        print(report(name, simulate(units, order(), args.workers)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
