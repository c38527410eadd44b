"""Every text about local tokens says what they are: RS256-signed with the local key
(`make token` itself: tests/http/test_make_token.py)."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_api_description_and_the_authorize_dialog_say_rs256_signed():
    document = json.loads((ROOT / "docs/openapi.json").read_text(encoding="utf-8"))
    scheme = document["components"]["securitySchemes"]["cognito"]["description"]
    for text in (document["info"]["description"], scheme):
        assert "RS256" in text and "unsigned" not in text, text


def test_the_startup_banner_says_rs256_signed():
    source = (ROOT / "local/run.py").read_text(encoding="utf-8")
    banner = next(line for line in source.splitlines() if "demo token for sub=alice" in line)
    assert "RS256-signed" in banner and "unsigned" not in banner
