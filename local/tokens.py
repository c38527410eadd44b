"""Local stand-in for the Cognito authorizer: unsigned JWTs whose payload becomes the claims.

Locally nothing checks a signature: this is for development only, never for a deployment.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import time
from typing import Any


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def make_token(sub: str, groups: list[str] | None = None, ttl_s: int = 12 * 3600, issued_at: int | None = None) -> str:
    header = {"alg": "none", "typ": "JWT"}
    now = int(time.time()) if issued_at is None else issued_at
    payload: dict[str, Any] = {"sub": sub, "token_use": "id", "iss": "ddbguard-local", "iat": now, "exp": now + ttl_s}
    if groups:
        payload["cognito:groups"] = groups
    return f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(payload).encode())}."


def claims_from_authorization(value: str | None) -> dict[str, str] | None:
    """The token's payload as API Gateway would hand it over (string values), or None if unusable."""
    if not value or not value.startswith("Bearer "):
        return None
    parts = value[len("Bearer ") :].strip().split(".")
    if len(parts) != 3:
        return None
    try:
        padded = parts[1] + "=" * (-len(parts[1]) % 4)
        payload = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(payload, dict) or not isinstance(payload.get("sub"), str) or not payload["sub"]:
        return None
    if isinstance(payload.get("exp"), int) and payload["exp"] < time.time():
        return None
    # API Gateway's Cognito authorizer passes every claim as a string; lists become "a,b".
    return {k: ",".join(map(str, v)) if isinstance(v, list) else str(v) for k, v in payload.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description="Print a local bearer token (unsigned; local use only).")
    parser.add_argument("--sub", default="alice")
    parser.add_argument("--groups", default="", help="comma-separated Cognito groups, e.g. admin")
    args = parser.parse_args()
    print(make_token(args.sub, [g for g in args.groups.split(",") if g]))
    # Stdout is the token alone (`export TOKEN=$(make -s token)`); where to use it goes to stderr.
    from local.service_state import HOW_TO_START, read_state

    running = read_state()
    if running is not None:
        print(f"ddbguard: token for sub={args.sub}; the API runs at {running.api_url}", file=sys.stderr)
    else:
        print(f"ddbguard: token for sub={args.sub}; no local API is running: {HOW_TO_START}", file=sys.stderr)


if __name__ == "__main__":
    main()
