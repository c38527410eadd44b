"""The local stand-in for API Gateway's Cognito authorizer: RS256 tokens from a local key, verified as Cognito's are.

`make run` signs its demo tokens (`make token`, the tests' client) with a local RSA key and serves the matching
JWKS at `/.well-known/jwks.json`. A bearer token is accepted only when, like a Cognito user-pool token at API
Gateway:

- its header says `alg: RS256` and names this key (`kid`), and the signature verifies with it (no `none`, no HMAC);
- `iss` is the local user pool, `token_use` is `id` (with `aud` the local app client) or `access` (with
  `client_id` the local app client);
- `exp` (required), `nbf` and `iat` are numbers (never strings or booleans), `exp` is in the future, `nbf` is not.

Anything else answers 401 before a handler runs. The key lives in `.local/` (never committed), made on first use;
it only ever signs local tokens. Verification uses PyJWT (a development dependency: nothing here is deployed).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
import time
from functools import cache
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from local.paths import ROOT

KEY_FILE = ROOT / ".local" / "local-cognito-rs256.pem"
JWKS_PATH = "/.well-known/jwks.json"
# What a Cognito user pool's tokens carry, spelled for the local one.
ISSUER = "https://cognito-idp.us-east-1.amazonaws.com/us-east-1_ddbguardLocal"
CLIENT_ID = "ddbguard-local-client"
ALGORITHM = "RS256"
_TIME_CLAIMS = ("exp", "nbf", "iat", "auth_time")


def _load_or_create_key(path: Path) -> rsa.RSAPrivateKey:
    """The local signing key; made once, atomically, so concurrent first uses agree on one key."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as staged:
            staged.write(pem)
        os.chmod(staged.name, 0o600)
        try:
            os.link(staged.name, path)  # fails if another process made it first: theirs wins
        except FileExistsError:
            pass
        finally:
            os.unlink(staged.name)
    loaded = serialization.load_pem_private_key(path.read_bytes(), password=None)
    assert isinstance(loaded, rsa.RSAPrivateKey)
    return loaded


@cache
def signing_key() -> rsa.RSAPrivateKey:
    return _load_or_create_key(KEY_FILE)


@cache
def public_jwk() -> dict[str, Any]:
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(signing_key().public_key()))
    return {**jwk, "kid": _thumbprint(jwk), "alg": ALGORITHM, "use": "sig"}


def _thumbprint(jwk: dict[str, Any]) -> str:
    """RFC 7638 thumbprint: the key's id, stable for as long as the key file lives."""
    canonical = json.dumps({"e": jwk["e"], "kty": "RSA", "n": jwk["n"]}, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).rstrip(b"=").decode()


def jwks() -> dict[str, Any]:
    return {"keys": [public_jwk()]}


def sign(claims: dict[str, Any]) -> str:
    """A token over `claims` with the local key, as the local user pool would issue it."""
    return jwt.encode(claims, signing_key(), algorithm=ALGORITHM, headers={"kid": public_jwk()["kid"]})


def id_token_claims(sub: str, groups: list[str] | None, *, issued_at: int, ttl_s: int) -> dict[str, Any]:
    claims: dict[str, Any] = {
        "sub": sub,
        "iss": ISSUER,
        "aud": CLIENT_ID,
        "token_use": "id",
        "auth_time": issued_at,
        "iat": issued_at,
        "exp": issued_at + ttl_s,
    }
    if groups:
        claims["cognito:groups"] = groups
    return claims


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def verified_claims(token: str, now_s: float | None = None) -> dict[str, Any] | None:
    """The token's claims when the local authorizer accepts it (see the module doc), else None."""
    try:
        header = jwt.get_unverified_header(token)
        if header.get("alg") != ALGORITHM or header.get("kid") != public_jwk()["kid"]:
            return None
        claims = jwt.decode(
            token,
            signing_key().public_key(),
            algorithms=[ALGORITHM],
            issuer=ISSUER,
            options={"require": ["exp", "iss", "sub", "token_use"], "verify_aud": False, "verify_exp": False},
        )
    except jwt.PyJWTError:
        return None
    now = time.time() if now_s is None else now_s
    if any(name in claims and not _is_number(claims[name]) for name in _TIME_CLAIMS):
        return None
    if claims["exp"] <= now or ("nbf" in claims and claims["nbf"] > now):
        return None
    if not isinstance(claims["sub"], str) or not claims["sub"]:
        return None
    if claims["token_use"] == "id":
        audience_ok = claims.get("aud") == CLIENT_ID
    elif claims["token_use"] == "access":
        audience_ok = claims.get("client_id") == CLIENT_ID
    else:
        audience_ok = False
    return claims if audience_ok else None


def authorize(authorization: str | None) -> dict[str, str] | None:
    """The claims API Gateway would hand the handler (every value a string), or None: answer 401."""
    if not authorization or not authorization.startswith("Bearer "):
        return None
    claims = verified_claims(authorization[len("Bearer ") :].strip())
    if claims is None:
        return None
    # API Gateway's Cognito authorizer passes every claim as a string; lists become "a,b".
    return {k: ",".join(map(str, v)) if isinstance(v, list) else str(v) for k, v in claims.items()}


def serve_jwks(method: str, path: str) -> tuple[int, dict[str, Any], bytes] | None:
    """The JWKS document for its path (as a user pool serves it), or None when `path` is another one."""
    if method not in ("GET", "HEAD") or path != JWKS_PATH:
        return None
    return 200, {"Content-Type": "application/json"}, json.dumps(jwks()).encode()
