"""`make token` prints an RS256-signed token that the local authorizer accepts, as the texts say."""

from __future__ import annotations

import subprocess
from pathlib import Path

import jwt

from local import authorizer

ROOT = Path(__file__).resolve().parents[2]


def test_make_token_prints_an_rs256_token_the_local_authorizer_accepts():
    result = subprocess.run(
        ["make", "--no-print-directory", "token", "SUB=texts-check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    token = result.stdout.strip()
    assert jwt.get_unverified_header(token)["alg"] == "RS256"
    claims = authorizer.authorize(f"Bearer {token}")
    assert claims is not None and claims["sub"] == "texts-check"
