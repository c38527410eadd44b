#!/usr/bin/env python3
"""CDK entry point (`cdk.json` runs it with the venv's Python): synthesizes `DdbguardStack`, checked by cdk-nag."""

from __future__ import annotations

from infra.stack import build_app

app, _stack = build_app()
app.synth()
