"""schemathesis as its CLI runs it, every check on (`--checks all`) and every phase, the stateful one included,
against the local server; the inherent answers it must accept are declared, with reasons, in schemathesis.toml.

A few examples per operation in `make test` (DDBGUARD_SCHEMATHESIS_CLI_EXAMPLES, default 3); `make fuzz` runs many.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from local.openapi import OPENAPI_PATH
from local.paths import ROOT
from local.tokens import make_token

EXAMPLES = int(os.environ.get("DDBGUARD_SCHEMATHESIS_CLI_EXAMPLES", "3"))


def test_every_check_and_phase_passes(local_server: str) -> None:
    assert (ROOT / "schemathesis.toml").is_file()
    command = [
        str(Path(sys.executable).with_name("schemathesis")),
        "run",
        str(OPENAPI_PATH),
        "--url",
        local_server,
        "--checks",
        "all",
        "--max-examples",
        str(EXAMPLES),
        "--seed",
        "1",
        "--no-color",
        "-H",
        f"Authorization: Bearer {make_token('schemathesis-cli')}",
    ]
    completed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output[-6000:]
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in output, output[-3000:]
