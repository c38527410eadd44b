"""`make watch ENV=dev`: cdk watch with hotswap on an environment whose config allows it; prod refused. Tested
without AWS: the refusal comes before any call, and the dev command line is printed (DRY_RUN=1), not run."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from infra import constants, environments, settings
from scripts.cdk_watch import Refused, watch_command

# No credentials and no region: whatever runs here must not need AWS.
NO_AWS = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")} | {"AWS_CONFIG_FILE": "/nonexistent"}


def _make(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["make", "-s", *args], cwd=constants.REPO_ROOT, env=NO_AWS, capture_output=True, text=True, timeout=600
    )


def test_dev_is_watched_with_hotswap_and_its_config():
    command = watch_command("dev", ["-c", "alarmEmails=a@example.com"])
    assert command[:5] == ["npx", "--no-install", "cdk", "watch", constants.STACK_ID]
    assert "--hotswap-fallback" in command  # code hotswapped; the layer and the rest through CloudFormation
    assert command[-4:] == ["-c", "environment=dev", "-c", "alarmEmails=a@example.com"]


def test_only_an_environment_whose_config_allows_hotswap_is_watched():
    assert environments.load("dev")[settings.HOTSWAP.name] is True
    assert settings.HOTSWAP.name not in environments.load("prod")
    with pytest.raises(Refused, match=r"config/prod\.json does not allow hotswap"):
        watch_command("prod", [])
    with pytest.raises(Refused, match=r"no nope\.json"):
        watch_command("nope", [])


def test_make_watch_refuses_prod_and_prints_devs_command_without_aws():
    refused = _make("watch", "ENV=prod")
    assert refused.returncode != 0
    assert "make watch ENV=prod refused" in refused.stderr and "make deploy ENV=prod" in refused.stderr
    dev = _make("watch", "ENV=dev", "DRY_RUN=1")
    assert dev.returncode == 0, dev.stderr
    assert dev.stdout.strip().endswith(
        f"cdk watch {constants.STACK_ID} --hotswap-fallback --no-notices -c environment=dev"
    )
    missing = _make("watch")
    assert missing.returncode != 0 and "ENV=" in missing.stderr


def test_cdk_watch_sees_the_code_and_the_config_but_not_the_tests():
    watch = json.loads((constants.REPO_ROOT / "cdk.json").read_text(encoding="utf-8"))["watch"]
    assert {"app.py", "infra/**", "functions/**", "config/**"} <= set(watch["include"])
    assert "tests" in watch["exclude"]
