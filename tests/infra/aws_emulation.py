"""An AWS account to rehearse operations in: moto in server mode (AWS's APIs over HTTP, a maintained project), with
the table on DynamoDB Local, seeded from a synthesized template so every name is the one the stack would have.

- `MotoServer` starts `moto_server` in its own process on a free port, for the stack's account (MOTO_ACCOUNT_ID),
  and waits for its readiness answer. Lambda functions are created but never run (no Docker): an invocation is
  accepted (202) and what the function would log is seeded by the test.
- `DeployedStack` gives every resource of the template the physical name CloudFormation would give it (an explicit
  name where the template sets one, `<stack>-<logical id>-<suffix>` otherwise), creates in moto what the runbook
  reads (the stack with its outputs resolved, every function, log group, alarm, queue, topic, the state machine,
  the operator role) and names the table it creates on DynamoDB Local.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3

REGION = "eu-west-1"
_CREDENTIALS = {"id": "rehearsal", "secret": "rehearsal"}  # any: moto acts for MOTO_ACCOUNT_ID


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class MotoServer:
    account: str
    endpoint: str = ""
    process: subprocess.Popen[bytes] | None = None

    def client(self, service: str) -> Any:
        session = boto3.Session(
            region_name=REGION, aws_access_key_id=_CREDENTIALS["id"], aws_secret_access_key=_CREDENTIALS["secret"]
        )
        return session.client(service, endpoint_url=self.endpoint)  # type: ignore[call-overload]  # any service

    def start(self, log: Path) -> None:
        port = _free_port()
        self.endpoint = f"http://127.0.0.1:{port}"
        command = [str(Path(sys.executable).with_name("moto_server")), "-H", "127.0.0.1", "-p", str(port)]
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "MOTO_ACCOUNT_ID": self.account}
            )
        self._wait_until_ready()
        # Functions are never run here: an invocation is accepted, what it would log is seeded.
        self._post("/moto-api/config", {"lambda": {"use_docker": False}})

    def _wait_until_ready(self) -> None:
        """Until moto answers (readiness, not a clock): each try waits for its answer up to 60 s."""
        assert self.process is not None
        for _ in range(600):
            if self.process.poll() is not None:
                raise RuntimeError(f"moto_server exited with {self.process.returncode}")
            try:
                with urllib.request.urlopen(f"{self.endpoint}/moto-api/data.json", timeout=60):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("moto_server did not answer")

    def _post(self, path: str, body: dict[str, Any]) -> None:
        request = urllib.request.Request(
            f"{self.endpoint}{path}",
            data=json.dumps(body).encode(),
            method="POST",
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60):
            pass

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=60)


@contextmanager
def moto_server(account: str, log: Path) -> Iterator[MotoServer]:
    server = MotoServer(account)
    server.start(log)
    try:
        yield server
    finally:
        server.stop()


def _suffix(logical_id: str) -> str:
    """The random-looking tail CloudFormation appends to a generated name (stable here, from the logical id)."""
    return hashlib.sha256(logical_id.encode()).hexdigest()[:12].upper()


@dataclass
class DeployedStack:
    """The template's resources with the physical names CloudFormation would give them, created in moto."""

    template: dict[str, Any]
    stack_name: str
    account: str
    moto: MotoServer
    api_id: str = "a1b2c3d4e5"
    physical: dict[str, str] = field(default_factory=dict)  # logical id -> what `Ref` returns
    outputs: dict[str, str] = field(default_factory=dict)

    def of_type(self, kind: str) -> dict[str, dict[str, Any]]:
        return {key: value for key, value in self.template["Resources"].items() if value["Type"] == kind}

    def generated(self, logical_id: str, limit: int = 64) -> str:
        name = f"{self.stack_name}-{logical_id}"[: limit - 13]
        return f"{name}-{_suffix(logical_id)}"

    # --- intrinsic functions, as CloudFormation resolves them ----------------------------------------------

    def resolve(self, value: Any) -> Any:
        if isinstance(value, dict) and len(value) == 1:
            ((function, argument),) = value.items()
            if function == "Ref":
                return self._ref(argument)
            if function == "Fn::Join":
                separator, parts = argument
                return separator.join(str(self.resolve(part)) for part in parts)
            if function == "Fn::GetAtt":
                return self._attribute(*argument)
            if function == "Fn::Select":
                index, items = argument
                return self.resolve(items)[int(index)]
            if function == "Fn::Split":
                separator, text = argument
                return str(self.resolve(text)).split(separator)
        if isinstance(value, dict):
            return {key: self.resolve(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.resolve(item) for item in value]
        return value

    def _ref(self, name: str) -> str:
        pseudo = {"AWS::Region": REGION, "AWS::AccountId": self.account, "AWS::Partition": "aws"}
        pseudo |= {"AWS::URLSuffix": "amazonaws.com", "AWS::StackName": self.stack_name}
        if name in pseudo:
            return pseudo[name]
        return self.physical[name]

    def _attribute(self, logical_id: str, attribute: str) -> str:
        kind = self.template["Resources"][logical_id]["Type"]
        name = self.physical[logical_id]
        if kind == "AWS::IAM::Role" and attribute == "Arn":
            return f"arn:aws:iam::{self.account}:role/{name}"
        if kind == "AWS::SQS::Queue" and attribute == "QueueName":
            return name.rsplit("/", 1)[-1]
        if kind == "AWS::SQS::Queue" and attribute == "Arn":
            return f"arn:aws:sqs:{REGION}:{self.account}:{name.rsplit('/', 1)[-1]}"
        if kind == "AWS::Lambda::Function" and attribute == "Arn":
            return f"arn:aws:lambda:{REGION}:{self.account}:function:{name}"
        if kind == "AWS::ApiGateway::RestApi" and attribute == "RootResourceId":
            return "root"
        raise KeyError(f"{logical_id}.{attribute}: not needed by the rehearsal")

    # --- creating the resources the runbook reads ----------------------------------------------------------

    def create(self) -> None:
        moto = self.moto
        iam = moto.client("iam")
        role_arn = iam.create_role(RoleName="rehearsal-lambda", AssumeRolePolicyDocument="{}")["Role"]["Arn"]
        # Every other resource: the name CloudFormation generates (an id for the user pool, the client, ...).
        self.physical = {logical_id: self.generated(logical_id) for logical_id in self.template["Resources"]}
        for logical_id in self.of_type("AWS::ApiGateway::RestApi"):
            self.physical[logical_id] = self.api_id
        for logical_id in self.of_type("AWS::ApiGateway::Stage"):
            self.physical[logical_id] = "v1"
        for logical_id in self.of_type("AWS::DynamoDB::Table"):
            self.physical[logical_id] = self.generated(logical_id, 255)
        for logical_id, resource in self.of_type("AWS::Logs::LogGroup").items():
            name = resource["Properties"].get("LogGroupName")
            self.physical[logical_id] = name if isinstance(name, str) else self.generated(logical_id, 512)
        for logical_id, resource in self.of_type("AWS::Lambda::Function").items():
            name = resource["Properties"]["FunctionName"]
            self.physical[logical_id] = name
            moto.client("lambda").create_function(
                FunctionName=name,
                Runtime="python3.13",
                Role=role_arn,
                Handler=resource["Properties"]["Handler"],
                Code={"ZipFile": _empty_zip()},
            )
            reserved = resource["Properties"].get("ReservedConcurrentExecutions")
            if reserved:
                moto.client("lambda").put_function_concurrency(
                    FunctionName=name, ReservedConcurrentExecutions=int(reserved)
                )
        logs = moto.client("logs")
        for logical_id in self.of_type("AWS::Logs::LogGroup"):
            name = self.physical[logical_id]
            if isinstance(name, str) and "${" not in name and not name.startswith("API-Gateway-Execution-Logs"):
                logs.create_log_group(logGroupName=name)
                logs.create_log_stream(logGroupName=name, logStreamName="rehearsal")
        for logical_id in self.of_type("AWS::SQS::Queue"):
            url = moto.client("sqs").create_queue(QueueName=self.generated(logical_id, 80))["QueueUrl"]
            self.physical[logical_id] = url
        for logical_id in self.of_type("AWS::SNS::Topic"):
            self.physical[logical_id] = moto.client("sns").create_topic(Name=self.generated(logical_id, 256))[
                "TopicArn"
            ]
        for logical_id in self.of_type("AWS::IAM::Role"):
            self.physical[logical_id] = self.generated(logical_id)
        for logical_id in self.of_type("AWS::StepFunctions::StateMachine"):
            definition = json.dumps({"StartAt": "Done", "States": {"Done": {"Type": "Pass", "End": True}}})
            self.physical[logical_id] = moto.client("stepfunctions").create_state_machine(
                name=self.generated(logical_id, 80), definition=definition, roleArn=role_arn
            )["stateMachineArn"]
        for logical_id, resource in self.of_type("AWS::CloudWatch::Alarm").items():
            self.physical[logical_id] = resource["Properties"]["AlarmName"]
            self._put_alarm(resource["Properties"])
        self.outputs = {name: str(self.resolve(output["Value"])) for name, output in self.template["Outputs"].items()}
        body = {
            "Resources": {"Rehearsal": {"Type": "AWS::CloudFormation::WaitConditionHandle"}},
            "Outputs": {name: {"Value": value} for name, value in self.outputs.items()},
        }
        moto.client("cloudformation").create_stack(StackName=self.stack_name, TemplateBody=json.dumps(body))

    def _put_alarm(self, properties: dict[str, Any]) -> None:
        resolved = self.resolve(properties)
        keys = (
            "AlarmName",
            "AlarmDescription",
            "ActionsEnabled",
            "AlarmActions",
            "OKActions",
            "ComparisonOperator",
            "DatapointsToAlarm",
            "EvaluationPeriods",
            "Threshold",
            "TreatMissingData",
            "MetricName",
            "Namespace",
            "Dimensions",
            "Period",
            "Statistic",
            "Metrics",
        )
        self.moto.client("cloudwatch").put_metric_alarm(**{key: resolved[key] for key in keys if key in resolved})

    def function_of(self, alarm_name: str) -> str | None:
        """The FunctionName dimension of an alarm of the template (None when it watches no function)."""
        (alarm,) = [
            r["Properties"]
            for r in self.of_type("AWS::CloudWatch::Alarm").values()
            if r["Properties"]["AlarmName"] == alarm_name
        ]
        resolved = self.resolve(alarm)
        dimensions = list(resolved.get("Dimensions", []))
        for query in resolved.get("Metrics", []):
            dimensions += query.get("MetricStat", {}).get("Metric", {}).get("Dimensions", [])
        return next((d["Value"] for d in dimensions if d["Name"] == "FunctionName"), None)


def _empty_zip() -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("handler.py", "def handler(event, context):\n    return None\n")
    return buffer.getvalue()


# --- running the docs' commands against it ------------------------------------------------------------------

# The AWS CLI v1 sends `aws sqs` to SQS's legacy regional host unless `--endpoint-url` is given on the command line
# (its SSL-common-name customization ignores AWS_ENDPOINT_URL); this stand-in for `aws` gives it the emulation's
# endpoint for SQS alone and runs every command otherwise unchanged.
AWS_SHIM = """#!/usr/bin/env bash
if [ "$1" = sqs ]; then exec "{aws}" --endpoint-url "$AWS_ENDPOINT_URL" "$@"; fi
exec "{aws}" "$@"
"""
BASH_BLOCK = re.compile(r"```bash\n(.*?)```", re.S)


def aws_shim(directory: Path, repo_root: Path) -> Path:
    """`directory` with the `aws` stand-in above in it (for PATH), wrapping the venv's AWS CLI."""
    shim = directory / "aws"
    shim.write_text(AWS_SHIM.format(aws=repo_root / ".venv" / "bin" / "aws"), encoding="utf-8")
    shim.chmod(0o755)
    return directory


def cli_environment(moto: MotoServer, shim_dir: Path, repo_root: Path, **variables: str) -> dict[str, str]:
    """The environment a doc's commands run in: the venv's AWS CLI (through the shim) and every SDK pointed at the
    emulation, its credentials, the stack's region; no variable of the caller's AWS or make run leaks in."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "MAKE"))},
        "PATH": os.pathsep.join((str(shim_dir), str(repo_root / ".venv" / "bin"), os.environ["PATH"])),
        "AWS_ENDPOINT_URL": moto.endpoint,
        "AWS_ACCESS_KEY_ID": _CREDENTIALS["id"],
        "AWS_SECRET_ACCESS_KEY": _CREDENTIALS["secret"],
        "AWS_DEFAULT_REGION": REGION,
        **variables,
    }


def markdown_sections(text: str, level: int = 2) -> dict[str, list[str]]:
    """Heading (`preamble` before the first) -> its ```bash blocks, dedented, in order."""
    heading = re.compile(rf"^{'#' * level} (.+)$", re.M)
    marks = [("preamble", 0)] + [(match[1].strip("`"), match.start()) for match in heading.finditer(text)]
    sections = {}
    for index, (name, start) in enumerate(marks):
        end = marks[index + 1][1] if index + 1 < len(marks) else len(text)
        sections[name] = [textwrap.dedent(block) for block in BASH_BLOCK.findall(text[start:end])]
    return sections
