"""docs/operations.md, rehearsed: every command of the runbook runs, as written, against moto in server mode seeded
with what the synthesized prod stack creates (names from its outputs and alarms; the table on DynamoDB Local), and
prints what the runbook says the engineer will see.

Each section's ```bash blocks run in one bash, after the page's setup block, with the AWS CLI of the venv pointed
at the emulation (AWS_ENDPOINT_URL, and AWS_ENDPOINT_URL_DYNAMODB for the table), `$ALARM` set to an alarm of the
section's kind as the stack names it. What the functions would have logged, the access log's lines, the metrics and
the failure queue's messages are seeded first, in the formats the stack writes them (the access log from the
stage's own format, function logs through Powertools' Logger, lock-audit findings from a real audit of a broken
table).
"""

from __future__ import annotations

import io
import json
import logging
import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from infra.api import ACCESS_LOG_FORMAT
from routes import ROUTES

from .aws_emulation import DeployedStack, MotoServer, aws_shim, cli_environment, markdown_sections, moto_server
from .conftest import REPO_ROOT

if TYPE_CHECKING:
    from conftest import Synth

RUNBOOK = REPO_ROOT / "docs" / "operations.md"
ACCOUNT = "444455556666"  # config/prod.json
STACK = "ddbguard-prod"


def runbook_sections() -> dict[str, list[str]]:
    """Heading (`preamble` before the first) -> its bash blocks, in order; the preamble's first is the setup."""
    return markdown_sections(RUNBOOK.read_text(encoding="utf-8"))


@dataclass
class Rehearsal:
    moto: MotoServer
    stack: DeployedStack
    dynamodb_endpoint: str
    table: str
    seeds: dict[str, Any]
    shim_dir: Path

    def run(self, section: str, **variables: str) -> str:
        """The section's blocks after the setup, in one bash; asserts exit 0; returns what it printed."""
        sections = runbook_sections()
        setup = sections["preamble"][0]
        blocks = sections["preamble"][1:] if section == "preamble" else sections[section]
        assert blocks, section
        script = "set -eo pipefail\n" + setup + "\n" + "\n".join(blocks)
        environment = cli_environment(
            self.moto, self.shim_dir, REPO_ROOT, AWS_ENDPOINT_URL_DYNAMODB=self.dynamodb_endpoint, **variables
        )
        result = subprocess.run(
            ["bash", "-c", script],
            cwd=REPO_ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert result.returncode == 0, f"{section}: exit {result.returncode}\n{result.stdout}\n{result.stderr}"
        return result.stdout


# --- what the stack would have written --------------------------------------------------------------------


def access_log_line(method: str, path: str, status: int, sub: str) -> str:
    """One access-log line as API Gateway writes it from the stage's format."""
    values = {
        "$context.requestId": f"req-{time.monotonic_ns()}",
        "$context.requestTime": "05/Dec/2026:10:00:00 +0000",
        "$context.httpMethod": method,
        "$context.resourcePath": path,
        "$context.status": str(status),
        "$context.protocol": "HTTP/1.1",
        "$context.responseLength": "120",
        "$context.responseLatency": "35",
        "$context.integrationLatency": "31",
        "$context.authorizer.claims.sub": sub,
        "$context.error.responseType": "-" if status < 500 else "INTEGRATION_FAILURE",
        "$context.integrationErrorMessage": "-",
        "$context.integration.status": str(status),
        "$context.xrayTraceId": "Root=1-00000000-000000000000000000000000",
    }
    line = ACCESS_LOG_FORMAT
    for placeholder in sorted(values, key=len, reverse=True):
        line = line.replace(placeholder, values[placeholder])
    return line


def powertools_lines(level: int, message: str, **extra: Any) -> str:
    """A line as the functions log it: Powertools' JSON formatter, service ddbguard (on a logger of its own, so
    the process's own loggers are left alone)."""
    from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

    buffer = io.StringIO()
    handler = logging.StreamHandler(buffer)
    handler.setFormatter(LambdaPowertoolsFormatter(service="ddbguard"))
    logger = logging.getLogger(f"rehearsal-{time.monotonic_ns()}")
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    logger.addHandler(handler)
    logger.log(level, message, extra=extra)
    logger.removeHandler(handler)
    return buffer.getvalue().strip()


def put_lines(moto: MotoServer, group: str, lines: list[str], *, at_ms: int | None = None) -> None:
    now = at_ms or int(time.time() * 1000)
    moto.client("logs").put_log_events(
        logGroupName=group,
        logStreamName="rehearsal",
        logEvents=[{"timestamp": now + index, "message": line} for index, line in enumerate(lines)],
    )


def put_metric(moto: MotoServer, namespace: str, name: str, value: float, **dimensions: str) -> None:
    moto.client("cloudwatch").put_metric_data(
        Namespace=namespace,
        MetricData=[
            {
                "MetricName": name,
                "Value": value,
                "Dimensions": [{"Name": k, "Value": v} for k, v in dimensions.items()],
                "Timestamp": time.time() - 300,
            }
        ],
    )


def critical_alarm(stack: DeployedStack, pattern: str) -> str:
    names = sorted(r["Properties"]["AlarmName"] for r in stack.of_type("AWS::CloudWatch::Alarm").values())
    return next(name for name in names if re.fullmatch(f"{STACK}-{pattern}", name))


@pytest.fixture(scope="module")
def rehearsal(
    prod_synth: Synth, dynamodb_local: Any, raw_client: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Rehearsal]:
    log = tmp_path_factory.mktemp("moto") / "moto.log"
    shim_dir = aws_shim(tmp_path_factory.mktemp("aws-cli"), REPO_ROOT)
    with moto_server(ACCOUNT, log) as moto, pytest.MonkeyPatch.context() as patch:
        stack = DeployedStack(prod_synth.json, STACK, ACCOUNT, moto)
        stack.create()
        table = stack.outputs["TableName"]
        from local.table import ensure_table

        ensure_table(raw_client, table)
        patch.setenv("TABLE_NAME", table)
        seeds = _seed(moto, stack, raw_client, table)
        yield Rehearsal(moto, stack, dynamodb_local.endpoint, table, seeds, shim_dir)


def _seed(moto: MotoServer, stack: DeployedStack, raw_client: Any, table: str) -> dict[str, Any]:
    outputs = stack.outputs
    seeds: dict[str, Any] = {}
    # A failing route function, and its route's 5xx in the access log; another route's 5xx that must not show.
    seeds["fault_alarm"] = critical_alarm(stack, "Withdraw-Fault-Count-Critical")
    seeds["fault_function"] = stack.function_of(seeds["fault_alarm"])
    error = powertools_lines(logging.ERROR, "withdrawal failed", exception_name="KeyError")
    put_lines(moto, f"/aws/lambda/{seeds['fault_function']}", [powertools_lines(logging.INFO, "fine"), error])
    seeds["fault_error"] = error
    seeds["rate_alarm"] = critical_alarm(stack, "ApiWithdraw-Fault-Rate-Critical")
    withdrawals = "/accounts/{accountId}/ledger/withdrawals"
    failing = access_log_line("POST", withdrawals, 502, "sub-alice")
    other = access_log_line("POST", "/transfers", 500, "sub-bob")
    busy = [access_log_line("POST", "/transfers", 503, "sub-carol") for _ in range(3)]
    busy.append(access_log_line("POST", withdrawals, 503, "sub-carol"))
    busy.append(access_log_line("POST", withdrawals, 503, "sub-dave"))
    fine = access_log_line("GET", "/accounts/{accountId}", 200, "sub-alice")
    put_lines(moto, outputs["ApiAccessLogGroupName"], [fine, failing, other, *busy])
    seeds["failing_requests"] = [failing, *busy[3:]]  # this route's 5xx: the 502, then its two 503s
    # The settlement: a permanent store error; the sweeper: summaries (one now, one as a sweep started by hand would
    # write it, a minute on); the failure queue: two messages; the metrics the runbook reads.
    settle_error = powertools_lines(logging.ERROR, "permanent store error", balances=1)
    put_lines(moto, f"/aws/lambda/{outputs['SettlementFunctionName']}", [settle_error])
    seeds["settle_error"] = settle_error
    sweep = powertools_lines(logging.INFO, "sweep done", balances=3, entries=7, oldestAgeSeconds=42.0)
    put_lines(moto, f"/aws/lambda/{outputs['SweeperFunctionName']}", [sweep])
    by_hand = powertools_lines(logging.INFO, "sweep done", balances=2, entries=5, oldestAgeSeconds=0.0)
    put_lines(moto, f"/aws/lambda/{outputs['SweeperFunctionName']}", [by_hand], at_ms=int(time.time() * 1000) + 60_000)
    seeds["sweep"], seeds["sweep_by_hand"] = sweep, by_hand
    queue = outputs["SettlementFailureQueueUrl"]
    for shard in ("shardId-000000000001", "shardId-000000000002"):
        body = json.dumps({"DDBStreamBatchInfo": {"shardId": shard, "startSequenceNumber": "100", "batchSize": 3}})
        moto.client("sqs").send_message(QueueUrl=queue, MessageBody=body)
    put_metric(moto, "AWS/Lambda", "ConcurrentExecutions", 87)
    put_metric(moto, "AWS/Lambda", "UnreservedConcurrentExecutions", 913)
    put_metric(moto, "AWS/SQS", "ApproximateAgeOfOldestMessage", 1234, QueueName=queue.rsplit("/", 1)[-1])
    put_metric(moto, "AWS/DynamoDB", "SystemErrors", 3, TableName=table, Operation="TransactWriteItems")
    put_metric(moto, "ddbguard-prod", "OldestUnsettledAgeSeconds", 42, service="ddbguard")
    seeds.update(_two_claimants(moto, outputs, raw_client, table))
    return seeds


def _two_claimants(moto: MotoServer, outputs: dict[str, str], raw_client: Any, table: str) -> dict[str, Any]:
    """Two accounts claiming one email (a write that bypassed the guards), audited: the audit's log lines."""
    import uuid

    from ddbguard.domain import accounts, lock_audit
    from ddbguard.domain.pseudonyms import Pseudonyms

    tag = uuid.uuid4().hex[:8]
    keeper = accounts.create_account("owner-a", email=f"shared.{tag}@example.io", username=f"keeper_{tag}")
    claimant = accounts.create_account("owner-b", email=f"own.{tag}@example.io", username=f"claimant_{tag}")
    raw_client.update_item(
        TableName=table,
        Key={"PK": {"S": f"ACCT#{claimant['accountId']}"}, "SK": {"S": "PROFILE"}},
        UpdateExpression="SET #email = :email",
        ExpressionAttributeNames={"#email": "email"},
        ExpressionAttributeValues={":email": {"S": keeper["email"]}},
    )
    report = lock_audit.audit_locks(repair=True)
    assert report.unrepaired, "the broken table must leave a finding a person decides"
    pseudonyms = Pseudonyms()
    lines = [powertools_lines(logging.WARNING, "lock audit finding", **pseudonyms.finding(f)) for f in report.findings]
    put_lines(moto, f"/aws/lambda/{outputs['AuditFunctionName']}", lines)
    return {"keeper": keeper, "claimant": claimant, "new_email": f"new.{tag}@example.io"}


# --- the rehearsal ----------------------------------------------------------------------------------------


def test_the_preamble_reads_the_state_of_the_alarm_that_paged(rehearsal: Rehearsal) -> None:
    printed = rehearsal.run("preamble", ALARM=rehearsal.seeds["fault_alarm"])
    assert printed.strip() == "OK"


def test_long_jobs_start_and_report(rehearsal: Rehearsal) -> None:
    printed = rehearsal.run("Long jobs: invoke them asynchronously, then watch")
    assert '"StatusCode": 202' in printed
    assert rehearsal.seeds["sweep_by_hand"] in printed  # the summary of the sweep started by hand
    assert printed.strip().splitlines()[-1] in {"RUNNING", "SUCCEEDED"}


def test_a_fault_names_its_function_and_shows_its_errors(rehearsal: Rehearsal) -> None:
    seeds = rehearsal.seeds
    printed = rehearsal.run("ddbguard-<env>-<Function>-Fault-Count-Critical", ALARM=seeds["fault_alarm"])
    first, *rest = printed.strip().splitlines()
    assert first == seeds["fault_function"] == "ddbguard-prod-Withdraw"
    assert rest == [seeds["fault_error"]]


def test_a_throttle_names_its_function_its_reservation_and_the_accounts_room(rehearsal: Rehearsal) -> None:
    alarm = critical_alarm(rehearsal.stack, "SettleEntries-Throttled-Count-Critical")
    printed = rehearsal.run("ddbguard-<env>-<Function>-Throttled-Count-Critical", ALARM=alarm)
    assert printed.startswith("ddbguard-prod-SettleEntries\n")
    assert json.loads(printed.split("\n", 1)[1].rsplit("\naccount:", 1)[0]) == {"ReservedConcurrentExecutions": 10}
    assert "account: 87.0 concurrent at most, 913.0 unreserved" in printed


def test_a_route_fault_rate_names_the_route_and_shows_its_failing_requests(rehearsal: Rehearsal) -> None:
    printed = rehearsal.run("ddbguard-<env>-Api<Route>-Fault-Rate-Critical", ALARM=rehearsal.seeds["rate_alarm"])
    first, *rest = printed.strip().splitlines()
    assert first == "POST /accounts/{accountId}/ledger/withdrawals"
    assert rest == rehearsal.seeds["failing_requests"]  # the other route's 5xx and every 2xx left out


def test_system_errors_name_the_table_and_the_operation(rehearsal: Rehearsal) -> None:
    alarm = critical_alarm(rehearsal.stack, "TableGuards-TableSystemErrors-Critical")
    printed = rehearsal.run("ddbguard-<env>-TableGuards-TableSystemErrors-Critical", ALARM=alarm)
    lines = printed.strip().splitlines()
    assert lines[0] == rehearsal.table
    assert "TransactWriteItems 3.0" in lines and "GetItem 0" in lines
    assert lines[-1] == "ACTIVE"


def test_busy_names_the_routes_and_the_callers(rehearsal: Rehearsal) -> None:
    alarm = critical_alarm(rehearsal.stack, "Integrity-BusyRate-Critical")
    printed = rehearsal.run("ddbguard-<env>-Integrity-BusyRate-Critical", ALARM=alarm)
    counts = [" ".join(line.split()) for line in printed.strip().splitlines()]
    assert counts[:2] == [
        '3 "resourcePath": "/transfers"',
        '2 "resourcePath": "/accounts/{accountId}/ledger/withdrawals"',
    ]
    assert counts[2:4] == ['4 "sub": "sub-carol"', '1 "sub": "sub-dave"']
    assert "ddbguard-prod-Table-Read-Throttled-Events-Warning OK" in counts


def test_an_unrepaired_lock_is_found_remedied_by_make_and_the_audit_starts(rehearsal: Rehearsal) -> None:
    from ddbguard.domain import lock_audit

    seeds = rehearsal.seeds
    claimant, keeper = seeds["claimant"]["accountId"], seeds["keeper"]["accountId"]
    alarm = critical_alarm(rehearsal.stack, "Integrity-LockAuditUnrepaired-Critical")
    printed = rehearsal.run(
        "ddbguard-<env>-Integrity-LockAuditUnrepaired-Critical",
        ALARM=alarm,
        ACCOUNT=claimant,
        FIELD="email",
        VALUE=seeds["new_email"],
    )
    finding, *rest = printed.strip().splitlines()
    assert '"problem":"lock_held_by_other"' in finding and f'"ownerId":"{claimant}"' in finding
    assert keeper in finding and seeds["keeper"]["email"] not in printed
    # The layer's own warning (the old lock is another account's, left in place), then what the remedy did.
    assert any(line.startswith(f"account {claimant}: email is now '{seeds['new_email']}'") for line in rest)
    assert rest[-1] in {"RUNNING", "SUCCEEDED"}
    assert lock_audit.audit_locks().clean  # nothing left for the next run to report


def test_a_stalled_stream_names_the_settlement_and_its_errors(rehearsal: Rehearsal) -> None:
    alarm = critical_alarm(rehearsal.stack, "Settlement-IteratorAge-Critical")
    printed = rehearsal.run("ddbguard-<env>-Settlement-IteratorAge-Critical", ALARM=alarm)
    assert printed.strip().splitlines() == ["ddbguard-prod-SettleEntries", rehearsal.seeds["settle_error"]]


def test_the_failure_queue_names_the_queue_its_depth_and_its_oldest_age(rehearsal: Rehearsal) -> None:
    alarm = critical_alarm(rehearsal.stack, "Settlement-FailureQueue-Critical")
    printed = rehearsal.run("ddbguard-<env>-Settlement-FailureQueue-Critical", ALARM=alarm)
    queue, rest = printed.split("\n", 1)
    assert queue == rehearsal.stack.outputs["SettlementFailureQueueUrl"]
    depth, age = rest.rsplit("}", 1)
    assert json.loads(depth + "}") == {"ApproximateNumberOfMessages": "2", "ApproximateNumberOfMessagesNotVisible": "0"}
    assert age.strip() == "1234.0"


def test_the_oldest_unsettled_names_the_sweeper_and_its_summaries(rehearsal: Rehearsal) -> None:
    alarm = critical_alarm(rehearsal.stack, "Settlement-OldestUnsettled-Critical")
    printed = rehearsal.run("ddbguard-<env>-Settlement-OldestUnsettled-Critical", ALARM=alarm)
    lines = printed.strip().splitlines()
    assert lines[0] == "ddbguard-prod-SweepPending" and rehearsal.seeds["sweep"] in lines


def test_settlement_behind_reads_the_errors_and_redrives_the_queue(rehearsal: Rehearsal) -> None:
    queue = rehearsal.stack.outputs["SettlementFailureQueueUrl"]
    printed = rehearsal.run("Settlement is behind")
    assert rehearsal.seeds["settle_error"] in printed and "42.0" in printed
    assert printed.count("DDBStreamBatchInfo") == 2  # both messages read
    attributes = rehearsal.moto.client("sqs").get_queue_attributes(QueueUrl=queue, AttributeNames=["All"])
    assert attributes["Attributes"]["ApproximateNumberOfMessages"] == "0"  # and deleted
    assert attributes["Attributes"]["ApproximateNumberOfMessagesNotVisible"] == "0"


def test_the_pager_test_pages_through_the_critical_path_and_its_section_says_who(rehearsal: Rehearsal) -> None:
    alarm = rehearsal.stack.outputs["PageTestAlarmName"]
    printed = rehearsal.run("Test the pager")
    assert printed.startswith(f"{alarm} is in ALARM (Test page: make page-test by arn:aws:")
    for action in (rehearsal.stack.outputs["AlarmTopicArn"], "arn:aws:sns:eu-west-1:444455556666:ddbguard-oncall"):
        assert action in printed
    section = rehearsal.run("ddbguard-<env>-Pager-Test-Critical", ALARM=alarm)
    state, reason = section.strip().split("\t")
    assert state == "ALARM" and reason.startswith("Test page: make page-test by ")


def test_the_stack_policy_can_be_lifted_on_purpose(rehearsal: Rehearsal) -> None:
    rehearsal.run("Replacing the table or the user pool on purpose")
    body = rehearsal.moto.client("cloudformation").get_stack_policy(StackName=STACK)["StackPolicyBody"]
    assert json.loads(body)["Statement"][0]["Action"] == "Update:*"


def test_every_section_of_the_runbook_is_rehearsed() -> None:
    """A new section needs its rehearsal here: every heading with commands has a test above naming it."""
    source = Path(__file__).read_text(encoding="utf-8")
    for section, blocks in runbook_sections().items():
        if blocks and section != "preamble":
            assert f'"{section}"' in source, f"{section}: no rehearsal"


def test_every_critical_alarm_of_prod_names_its_function_or_resource(prod_synth: Synth) -> None:
    """The first command of every Critical alarm's section names what to look at: the setup's alarm-dimension
    query, applied (with the AWS CLI's JMESPath) to each alarm as describe-alarms returns it, finds the function, or
    the route's method and resource, or the alarm's section names its resource from the stack's outputs."""
    import jmespath

    (query,) = re.findall(r'--query "(MetricAlarms\[0\][^"]*)"', runbook_sections()["preamble"][0])
    stack = DeployedStack(prod_synth.json, STACK, ACCOUNT, MotoServer(ACCOUNT))
    stack.physical = {logical_id: stack.generated(logical_id) for logical_id in prod_synth.resources}
    for logical_id, resource in stack.of_type("AWS::Lambda::Function").items():
        stack.physical[logical_id] = resource["Properties"]["FunctionName"]
    by_outputs = {  # sections whose first command reads the stack's outputs or nothing of the alarm
        "TableGuards-TableSystemErrors-Critical",
        "Integrity-BusyRate-Critical",
        "Integrity-LockAuditUnrepaired-Critical",
        "Settlement-IteratorAge-Critical",
        "Settlement-FailureQueue-Critical",
        "Settlement-OldestUnsettled-Critical",
        "Pager-Test-Critical",
    }
    functions = {r["Properties"]["FunctionName"] for r in stack.of_type("AWS::Lambda::Function").values()}
    critical = [r["Properties"] for r in stack.of_type("AWS::CloudWatch::Alarm").values()]
    critical = [alarm for alarm in critical if alarm["AlarmName"].endswith("-Critical")]
    assert len(critical) > 60
    for alarm in critical:
        what = alarm["AlarmName"].removeprefix(f"{STACK}-")
        described = {"MetricAlarms": [{"Dimensions": [], **stack.resolve(alarm)}]}  # AWS returns [] for math alarms

        def named(dimension: str, described: dict[str, Any] = described) -> Any:
            return jmespath.search(query.replace("'$2'", f"'{dimension}'"), described)

        if what.endswith(("-Fault-Count-Critical", "-Throttled-Count-Critical")):
            assert named("FunctionName") in functions, what
        elif what.endswith("-Fault-Rate-Critical"):
            assert (named("Method"), named("Resource")) in {(r.method, r.path) for r in ROUTES}, what
        else:
            assert what in by_outputs, f"{what}: a Critical alarm whose section names nothing"
