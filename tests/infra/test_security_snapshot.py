"""An infra change that touches IAM, authorizers, alarms or table settings shows up as a reviewable diff."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from .security_shape import SNAPSHOT, render, security_shape

if TYPE_CHECKING:
    from conftest import Synth


def test_security_shape_matches_the_committed_snapshot(synth: Synth) -> None:
    current = render(security_shape(synth.json, synth.stack))
    committed = SNAPSHOT.read_text(encoding="utf-8")
    if current != committed:
        diff = "".join(
            difflib.unified_diff(
                committed.splitlines(keepends=True),
                current.splitlines(keepends=True),
                "committed",
                "synthesized",
                n=2,
            )
        )
        raise AssertionError(
            "The template's security shape changed. If intended, run `make snapshot` and commit "
            f"tests/infra/snapshots/security_shape.json.\n{diff[:20000]}"
        )


def test_snapshot_has_no_asset_hashes_or_raw_logical_ids(synth: Synth) -> None:
    text = SNAPSHOT.read_text(encoding="utf-8")
    assert ".zip" not in text
    for logical_id in synth.resources:
        assert f'"{logical_id}"' not in text, logical_id
