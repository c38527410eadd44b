"""Where things are in the repository, and how the runtime code is put on sys.path."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS = ROOT / "functions"
LAYER_PYTHON = FUNCTIONS / "layer" / "python"
EVENTS = ROOT / "events"


def add_runtime_to_path() -> None:
    """Mirror Lambda: the function code at the root, the layer's python/ folder beside it."""
    for folder in (str(LAYER_PYTHON), str(FUNCTIONS)):
        if folder not in sys.path:
            sys.path.insert(0, folder)
