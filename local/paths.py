"""Where things are in the repository."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS = ROOT / "functions"
LAYER_PYTHON = FUNCTIONS / "layer" / "python"
EVENTS = ROOT / "events"
