"""Per-environment configuration committed in `config/<env>.json`, so a deploy without flags keeps what it had.

`make synth/diff/deploy ENV=prod` passes `-c environment=prod`; the file's keys (every one a key of
infra/settings.py) become CDK context unless the command line (`CONTEXT='-c key=value'`) or the caller already
set them: an override always wins over the file. Without `environment` no file is read (tests, a bare `cdk synth`).
The files hold no secret: a value that looks like a credential (a URL with a password or a query string, a key
named like one) fails synthesis.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from aws_cdk import Environment
from constructs import Node

from infra import constants, settings
from infra.naming import ENVIRONMENT_KEY

CONFIG_DIR = constants.REPO_ROOT / "config"
_NAME = re.compile(r"^[a-z][a-z0-9-]{0,30}$")
_SECRET_WORDS = ("secret", "password", "apikey", "credential")
_SECRET_NAMES = re.compile(r"token$|accesskey|privatekey", re.I)  # a rate limit per token is not a token
_ACCOUNT = re.compile(r"^\d{12}$")
_REGION = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d$")


def config_path(environment: str) -> Path:
    if not _NAME.match(environment):
        raise ValueError(f"context {ENVIRONMENT_KEY}={environment!r}: a short lower-case name is required")
    return CONFIG_DIR / f"{environment}.json"


def load(environment: str) -> dict[str, Any]:
    """The file's context values, checked: known keys only, nothing secret-looking."""
    path = config_path(environment)
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in CONFIG_DIR.glob("*.json")))
        raise ValueError(f"context {ENVIRONMENT_KEY}={environment!r}: no {path.name} in config/ (have: {known})")
    values = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(values, dict):
        raise ValueError(f"{path.name}: a JSON object of context keys is required")
    for name, value in values.items():
        if name.startswith("//"):  # comments
            continue
        if name not in settings.BY_NAME:
            raise ValueError(f"{path.name}: {name!r} is not a context key (infra/settings.py)")
        _refuse_secret(path.name, name, value)
    return {name: value for name, value in values.items() if not name.startswith("//")}


def _refuse_secret(file: str, name: str, value: Any) -> None:
    if any(word in name.lower() for word in _SECRET_WORDS) or _SECRET_NAMES.search(name):
        raise ValueError(f"{file}: {name} looks like a secret; secrets stay out of config/")
    for item in value if isinstance(value, list) else [value]:
        text = str(item)
        if "://" in text:
            parts = urlsplit(text)
            if parts.password or parts.query:
                raise ValueError(f"{file}: {name} carries credentials in its URL; pass it with CONTEXT instead")


def apply(node: Node) -> str | None:
    """Fill the app's context from `config/<environment>.json` where nothing set the key; returns the name."""
    environment = node.try_get_context(ENVIRONMENT_KEY)
    if environment in (None, ""):
        return None
    for name, value in load(str(environment)).items():
        if node.try_get_context(name) in (None, ""):
            node.set_context(name, value)
    return str(environment)


def deployment_target(node: Node, environment: str) -> Environment:
    """The account and region a named environment deploys to, from its configuration: the stack is synthesized
    for them (an `ENV=prod` deploy with dev credentials then fails before CloudFormation runs)."""
    account = str(node.try_get_context(settings.ACCOUNT.name) or "").strip()
    region = str(node.try_get_context(settings.REGION.name) or "").strip()
    problems = []
    if not _ACCOUNT.match(account):
        problems.append(f"{settings.ACCOUNT.name} (the 12-digit AWS account id, now {account!r})")
    if not _REGION.match(region):
        problems.append(f"{settings.REGION.name} (e.g. eu-west-1, now {region!r})")
    if problems:
        raise ValueError(
            f"Environment {environment!r} names no deployment target: set {' and '.join(problems)} in "
            f"config/{environment}.json and commit it."
        )
    return Environment(account=account, region=region)
