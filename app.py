#!/usr/bin/env python3
"""CDK entry point (`cdk.json` runs it with the venv's Python): synthesizes `DdbguardStack` for one named environment
(`-c environment=<name>`, which `make synth/diff/deploy ENV=<name>` passes), checked by cdk-nag."""

from __future__ import annotations

import sys

from infra.stack import EnvironmentRequired, build_app

try:
    app, _stack = build_app(require_environment=True)
except (EnvironmentRequired, ValueError) as refusal:
    # A configuration the stack refuses (a missing environment, a bad key, prod without a subscriber): the
    # message says what to set, a traceback would bury it.
    sys.exit(f"ddbguard: {refusal}")
app.synth()
