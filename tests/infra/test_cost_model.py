"""docs/infra.md's costs and docs/capacity.md's sizing are the model's (infra/cost_model.py), rendered from the
synthesized prod and dev templates, the bench's results and config/prod.json; and production's configuration
covers the busiest minute the model sizes it for."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING

from infra import cost_model
from infra.api import Throttle
from routes import ROUTES

from .conftest import REPO_ROOT
from .cost_figures import code_facts, edge_sizing, expected_documents, facts

if TYPE_CHECKING:
    from conftest import Synth


def test_the_documents_hold_the_models_figures(prod_synth: Synth, dev_synth: Synth) -> None:
    documents = expected_documents(facts(prod_synth.stack, prod_synth.json), facts(dev_synth.stack, dev_synth.json))
    for path, text in documents.items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name}: run `make regenerate`"


def test_prods_throttles_cover_the_busiest_minute_and_one_caller_takes_a_small_share() -> None:
    sizing = edge_sizing()
    assert sizing.route_rate >= cost_model.busiest_route_need()
    assert sizing.token_per_minute / 60 <= 0.1 * sizing.route_rate
    # The model's split is the stack's (infra/api.py).
    throttle = Throttle.split(sizing.stage_rate, sizing.stage_burst, routes=len(ROUTES), mocks=sizing.mock_methods)
    assert (throttle.route_rate, throttle.route_burst) == (sizing.route_rate, sizing.route_burst)


def test_the_stated_room_to_grow_is_the_last_route_count_the_budget_covers() -> None:
    sizing, need = edge_sizing(), cost_model.busiest_route_need()
    covered = sizing.routes_covered(need)
    assert covered >= sizing.routes  # what the first test checks, as a count
    grown = covered - sizing.routes
    last = replace(sizing, routes=sizing.routes + grown, mock_methods=sizing.mock_methods + grown)
    beyond = replace(sizing, routes=last.routes + 1, mock_methods=last.mock_methods + 1)
    assert last.route_rate >= need > beyond.route_rate


def test_the_whole_stage_at_its_budget_fits_the_accounts_default_concurrency() -> None:
    shapes = cost_model.BenchShapes.read()
    _route, p99 = shapes.slowest_route()
    prod = json.loads((REPO_ROOT / "config" / "prod.json").read_text(encoding="utf-8"))
    reserved = sum(prod[key] for key in prod if key.endswith("ReservedConcurrency"))
    assert edge_sizing().stage_rate * p99 / 1000 <= 1000 - reserved


def test_the_assumptions_are_prods_configuration() -> None:
    prod = json.loads((REPO_ROOT / "config" / "prod.json").read_text(encoding="utf-8"))
    assert cost_model.ASSUMPTIONS.backup_copies == prod["backupRetentionDays"]


def test_the_bench_shapes_are_read_from_its_results() -> None:
    shapes = cost_model.BenchShapes.read()
    assert len(shapes.route_p99_ms) >= 10 and all(value > 0 for value in shapes.route_p99_ms.values())
    assert [items for items, _segments, _units in sorted(shapes.audit_units)] == [10_000, 100_000]
    assert 0.01 < shapes.audit_units_per_item() < 0.1  # eventually consistent Scan: a few hundred bytes an item


def test_the_bench_shapes_hold_what_the_capacity_figures_need() -> None:
    shapes = cost_model.BenchShapes.read()
    assert shapes.movement_bytes().billed > shapes.movement_bytes().bytes > 0
    assert [sweep.items for sweep in sorted(shapes.sweeps, key=lambda sweep: sweep.items)] == [10_000, 100_000]
    assert shapes.backlog[0].values == 0 and shapes.backlog[0].units == cost_model.request_units()
    # The refused row is the bound the code enforces, and it is the last one.
    refused = [row for row in shapes.backlog if not row.accepted]
    assert refused == shapes.backlog[-1:] and refused[0].values == code_facts().pending_bound
    assert shapes.hot.threads > 0 and shapes.hot.settled_per_second > 0 and shapes.hot.accepted_per_second > 0


def test_the_shared_and_partition_units_follow_from_the_movement_units() -> None:
    shapes = cost_model.BenchShapes.read()
    # On a busy ledger a movement keeps its request's transaction, its marker's and its entry's settlement.
    busy = cost_model.movement_write_units() - cost_model.SHARED_WHEN_BUSY
    assert busy == cost_model.request_units() + cost_model.MARKER_UNITS + cost_model.ENTRY_UNITS
    idle, bound = cost_model.ledger_partition_units(shapes)
    assert idle < bound <= cost_model.AWS_LIMITS.partition_write_units
