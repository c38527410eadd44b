"""What `make deploy` checks before it synthesizes (scripts/check_account.py) and the stack policy it sets after
(scripts/stack_policy.py), against botocore's Stubber: the real clients' request validation, no network."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.stub import Stubber

from infra import naming, settings
from scripts import check_account, stack_policy

ACCOUNT = "111122223333"  # config/dev.json
PROD_ACCOUNT = "444455556666"  # config/prod.json
REGION = "eu-west-1"
PROD_RESERVED = {"settlementReservedConcurrency": 10, "auditReservedConcurrency": 4, "sweeperReservedConcurrency": 1}


class StubbedSession:
    """A boto3 Session whose clients are created once each and stubbed."""

    def __init__(self, region: str | None) -> None:
        self._session: Any = boto3.Session(
            aws_access_key_id="x", aws_secret_access_key="y", region_name=region or REGION
        )
        self.region_name = region
        self.clients: dict[str, Any] = {}
        self.stubs: dict[str, Stubber] = {}

    def client(self, name: str) -> Any:
        if name not in self.clients:
            self.clients[name] = self._session.client(name)
            self.stubs[name] = Stubber(self.clients[name])
            self.stubs[name].activate()
        return self.clients[name]

    def stub(self, name: str) -> Stubber:
        self.client(name)
        return self.stubs[name]


@pytest.fixture
def session() -> Iterator[StubbedSession]:
    stubbed = StubbedSession(REGION)
    yield stubbed
    for stub in stubbed.stubs.values():
        stub.assert_no_pending_responses()


def _identity(session: StubbedSession, account: str = ACCOUNT) -> None:
    session.stub("sts").add_response(
        "get_caller_identity",
        {"Account": account, "Arn": f"arn:aws:iam::{account}:user/deployer", "UserId": "AIDEXAMPLE"},
    )


def _bootstrap(session: StubbedSession, version: str = "27") -> None:
    session.stub("ssm").add_response(
        "get_parameter",
        {"Parameter": {"Name": check_account.BOOTSTRAP_PARAMETER, "Value": version, "Type": "String"}},
        {"Name": check_account.BOOTSTRAP_PARAMETER},
    )


def _quota(session: StubbedSession, limit: int, unreserved: int) -> None:
    session.stub("lambda").add_response(
        "get_account_settings",
        {"AccountLimit": {"ConcurrentExecutions": limit, "UnreservedConcurrentExecutions": unreserved}},
    )


def _no_stack(session: StubbedSession, stack_name: str) -> None:
    session.stub("cloudformation").add_client_error(
        "list_stack_resources",
        service_error_code="ValidationError",
        service_message=f"Stack with id {stack_name} does not exist",
        expected_params={"StackName": stack_name},
    )


def test_the_committed_files_reserve_nothing_in_dev_and_fifteen_in_prod() -> None:
    assert sum(check_account.reservations("dev", {}).values()) == 0
    assert check_account.reservations("prod", {}) == PROD_RESERVED
    assert check_account.reservations("prod", {"auditReservedConcurrency": "0"})["auditReservedConcurrency"] == 0
    assert all(key.default == 0 for key in settings.RESERVED_CONCURRENCY_KEYS)  # a new account's defaults


def test_no_region_is_refused_before_any_call() -> None:
    stubbed = StubbedSession(None)
    with pytest.raises(check_account.NotReady, match="No AWS region"):
        check_account.check(stubbed, "dev", {})  # type: ignore[arg-type]
    assert stubbed.clients == {}


def test_unusable_credentials_are_refused(session: StubbedSession) -> None:
    session.stub("sts").add_client_error("get_caller_identity", service_error_code="InvalidClientTokenId")
    with pytest.raises(check_account.NotReady, match="No usable AWS credentials"):
        check_account.check(session, "dev", {})  # type: ignore[arg-type]


def test_another_accounts_credentials_are_refused_before_anything_is_deployed(session: StubbedSession) -> None:
    _identity(session, PROD_ACCOUNT)  # prod's credentials, a deploy of dev
    with pytest.raises(check_account.NotReady, match=f"account {PROD_ACCOUNT}'s; ddbguard-dev deploys to account"):
        check_account.check(session, "dev", {})  # type: ignore[arg-type]


def test_another_region_is_refused_before_any_call() -> None:
    stubbed = StubbedSession("us-east-1")
    with pytest.raises(check_account.NotReady, match="deploys to eu-west-1"):
        check_account.check(stubbed, "prod", PROD_RESERVED)  # type: ignore[arg-type]
    assert stubbed.clients == {}


class UnreachableSession:
    """Real clients whose endpoint is a closed port on this machine: what no network looks like to botocore."""

    def __init__(self) -> None:
        self.region_name = REGION
        self._session: Any = boto3.Session(aws_access_key_id="x", aws_secret_access_key="y", region_name=REGION)

    def client(self, name: str) -> Any:
        closed = socket.socket()
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
        closed.close()  # nothing listens there now
        # The port refuses at once; the timeouts only bound a machine too loaded to answer (house floor: 60 s).
        config = Config(retries={"max_attempts": 1}, connect_timeout=60, read_timeout=60)
        return self._session.client(name, endpoint_url=f"http://127.0.0.1:{port}", config=config)


def test_no_network_is_called_a_network_problem_not_a_credentials_one() -> None:
    with pytest.raises(check_account.NotReady) as refused:
        check_account.check(UnreachableSession(), "dev", {})  # type: ignore[arg-type]
    assert "Cannot reach AWS over the network" in str(refused.value)
    assert "credentials were not tried" in str(refused.value) and "No usable AWS credentials" not in str(refused.value)


def test_an_unbootstrapped_account_is_told_the_command(session: StubbedSession) -> None:
    _identity(session)
    session.stub("ssm").add_client_error("get_parameter", service_error_code="ParameterNotFound")
    with pytest.raises(check_account.NotReady, match=f"cdk bootstrap aws://{ACCOUNT}/{REGION}"):
        check_account.check(session, "dev", {})  # type: ignore[arg-type]


def test_an_old_bootstrap_is_refused(session: StubbedSession) -> None:
    _identity(session)
    _bootstrap(session, "5")
    with pytest.raises(check_account.NotReady, match="older than 6"):
        check_account.check(session, "dev", {})  # type: ignore[arg-type]


def test_nothing_reserved_needs_no_quota_call(session: StubbedSession) -> None:
    _identity(session)
    _bootstrap(session)
    ready = check_account.check(session, "dev", check_account.reservations("dev", {}))  # type: ignore[arg-type]
    assert (ready.account, ready.region, ready.bootstrap_version, ready.reserved) == (ACCOUNT, REGION, 27, 0)
    assert "lambda" not in session.clients


def test_a_new_accounts_quota_refuses_prods_reservations_and_says_what_to_request(session: StubbedSession) -> None:
    _identity(session, PROD_ACCOUNT)
    _bootstrap(session)
    _quota(session, limit=10, unreserved=10)
    _no_stack(session, naming.stack_name("prod"))
    with pytest.raises(check_account.NotReady) as refusal:
        check_account.check(session, "prod", PROD_RESERVED)  # type: ignore[arg-type]
    message = str(refusal.value)
    assert "reserves 15" in message and "allows 10" in message
    assert check_account.CONCURRENCY_QUOTA_CODE in message
    assert "of at least 115" in message  # 100 kept unreserved + 15 reserved
    assert "settlementReservedConcurrency=10" in message


def test_a_standard_quota_takes_prods_reservations(session: StubbedSession) -> None:
    _identity(session, PROD_ACCOUNT)
    _bootstrap(session)
    _quota(session, limit=1000, unreserved=1000)
    _no_stack(session, naming.stack_name("prod"))
    ready = check_account.check(session, "prod", PROD_RESERVED)  # type: ignore[arg-type]
    assert ready.reserved == 15


def test_a_redeploy_counts_the_stacks_own_reservations_as_room(session: StubbedSession) -> None:
    # 115 in the account, 15 already reserved by this very stack: unreserved is 100, and the redeploy fits.
    _identity(session, PROD_ACCOUNT)
    _bootstrap(session)
    _quota(session, limit=115, unreserved=100)
    stack_name = naming.stack_name("prod")
    functions = {"ddbguard-prod-Settle": 10, "ddbguard-prod-Audit": 4, "ddbguard-prod-Sweep": 1}
    session.stub("cloudformation").add_response(
        "list_stack_resources",
        {
            "StackResourceSummaries": [
                {
                    "LogicalResourceId": f"F{index}",
                    "PhysicalResourceId": name,
                    "ResourceType": "AWS::Lambda::Function",
                    "LastUpdatedTimestamp": "2026-12-01T00:00:00Z",
                    "ResourceStatus": "UPDATE_COMPLETE",
                }
                for index, name in enumerate(functions)
            ]
        },
        {"StackName": stack_name},
    )
    for name, reserved in functions.items():
        session.stub("lambda").add_response(
            "get_function_concurrency", {"ReservedConcurrentExecutions": reserved}, {"FunctionName": name}
        )
    assert check_account.check(session, "prod", PROD_RESERVED).reserved == 15  # type: ignore[arg-type]


def test_the_stack_policy_denies_replacing_or_deleting_the_table_and_the_pool() -> None:
    template = {
        "Resources": {
            "StorageTable1": {"Type": "AWS::DynamoDB::Table"},
            "AuthUserPool2": {"Type": "AWS::Cognito::UserPool"},
            "SomeFunction": {"Type": "AWS::Lambda::Function"},
        }
    }
    client = boto3.client("cloudformation", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="y")
    expected = stack_policy.policy(template)
    with Stubber(client) as stub:
        stub.add_response(
            "set_stack_policy", {}, {"StackName": "ddbguard-prod", "StackPolicyBody": json.dumps(expected)}
        )
        stack_policy.apply(client, "ddbguard-prod", template)
        stub.assert_no_pending_responses()
    allow, deny = expected["Statement"]
    assert allow == {"Effect": "Allow", "Principal": "*", "Action": "Update:*", "Resource": "*"}
    assert deny["Effect"] == "Deny" and set(deny["Action"]) == {"Update:Replace", "Update:Delete"}
    assert deny["Resource"] == ["LogicalResourceId/AuthUserPool2", "LogicalResourceId/StorageTable1"]


@pytest.mark.parametrize(
    ("described", "first"),
    [
        (None, True),  # no such stack
        ("ROLLBACK_COMPLETE", True),  # its first create rolled back: nothing of it is left
        ("UPDATE_COMPLETE", False),
    ],
)
def test_a_first_deploy_is_told_apart_from_a_redeploy(described: str | None, first: bool) -> None:
    client = boto3.client("cloudformation", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="y")
    with Stubber(client) as stub:
        if described is None:
            stub.add_client_error(
                "describe_stacks",
                service_error_code="ValidationError",
                service_message="Stack with id ddbguard-prod does not exist",
                expected_params={"StackName": "ddbguard-prod"},
            )
        else:
            stack = {"StackName": "ddbguard-prod", "CreationTime": "2026-12-01T00:00:00Z", "StackStatus": described}
            stub.add_response("describe_stacks", {"Stacks": [stack]}, {"StackName": "ddbguard-prod"})
        assert check_account.stack_exists(client, "ddbguard-prod") is not first
    assert check_account.FIRST_DEPLOY_CONTEXT == "-c deletionProtection=false"


def test_aws_region_names_the_deploys_region_as_for_the_cdk_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    monkeypatch.setenv("AWS_REGION", "eu-central-1")
    assert check_account.session().region_name == "eu-central-1"
