"""Local bearer tokens shaped like a Cognito user pool's ID tokens, signed with the local RS256 key.

`local.authorizer` verifies them as API Gateway's Cognito authorizer would (signature, issuer, audience, token
use, times). For development only: the key and its user pool exist nowhere but on this machine.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import time
from functools import lru_cache


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def make_token(
    sub: str,
    groups: list[str] | None = None,
    ttl_s: int = 12 * 3600,
    issued_at: int | None = None,
    *,
    signed: bool = True,
) -> str:
    """An ID token for `sub`. `signed=False`: the same claims unsigned (`alg: none`), for sample events that are
    invoked straight into a handler and must not change from machine to machine; the local server refuses them."""
    now = int(time.time()) if issued_at is None else issued_at
    if signed:
        return _signed_token(sub, tuple(groups or ()), ttl_s, now)
    from local import authorizer

    claims = authorizer.id_token_claims(sub, groups, issued_at=now, ttl_s=ttl_s)
    header = {"alg": "none", "typ": "JWT"}
    return f"{_b64(json.dumps(header).encode())}.{_b64(json.dumps(claims).encode())}."


@lru_cache(maxsize=1024)
def _signed_token(sub: str, groups: tuple[str, ...], ttl_s: int, issued_at: int) -> str:
    """Signing costs an RSA operation: a token asked again within the same second is the same token."""
    from local import authorizer

    return authorizer.sign(authorizer.id_token_claims(sub, list(groups), issued_at=issued_at, ttl_s=ttl_s))


def claims_from_authorization(value: str | None) -> dict[str, str] | None:
    """The token's payload as API Gateway would hand it over (string values), or None if unusable. Reads, never
    verifies: for sample events and `make invoke`, which skip the authorizer; the local server verifies
    (`local.authorizer.authorize`)."""
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
    parser = argparse.ArgumentParser(
        description="Print a local bearer token (signed with the local key; local use only)."
    )
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
