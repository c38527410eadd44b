"""What a named environment must be told before it synthesizes, all said at once: an environment other than the
team's sandbox (dev) serves real users, so it pages someone, mails them from a verified sender and holds every
user to MFA, whatever its monitoring profile. `build_app` refuses with every missing setting listed.
"""

from __future__ import annotations

from constructs import Node

from infra import settings

# Environments nobody is paged for, whose users are the team's own test users.
SANDBOX_ENVIRONMENTS = ("dev",)


def _text(node: Node, key: settings.ContextKey) -> str:
    value = node.try_get_context(key.name)
    return str(key.default if value is None or value == "" else value).strip()


def refusals(node: Node, environment: str) -> list[str]:
    """Each setting `environment` lacks, with what to set; empty for a sandbox or a ready environment."""
    if environment in SANDBOX_ENVIRONMENTS:
        return []
    missing = []
    if not (_text(node, settings.ALARM_TOPIC_ARN) or _text(node, settings.ALARM_WEBHOOK_URL)):
        emails = (
            " (alarmEmails alone is not a pager: an inbox nobody watches at night)"
            if _text(node, settings.ALARM_EMAILS)
            else ""
        )
        missing.append(
            f"no one receives its Critical alarms{emails}, whatever its {settings.MONITORING_PROFILE.name}: set "
            f"{settings.ALARM_TOPIC_ARN.name} (the ARN of the on-call SNS topic) or {settings.ALARM_WEBHOOK_URL.name} "
            f"(an https endpoint of the pager); {settings.ALARM_EMAILS.name} may be added beside it for Warnings"
        )
    if not _text(node, settings.SES_FROM_EMAIL):
        missing.append(
            "its users' mail (invitations, password resets) would come from Cognito's default sender, a few a day: "
            f"set {settings.SES_FROM_EMAIL.name} to an SES identity verified in its region"
        )
    if _text(node, settings.COGNITO_MFA) != "required":
        missing.append(f"{settings.COGNITO_MFA.name} must be required: it holds real accounts, admins among them")
    return missing


def check(node: Node, environment: str | None) -> None:
    if environment is None:
        return
    missing = refusals(node, environment)
    if missing:
        listed = "".join(f"\n  - {problem}" for problem in missing)
        raise ValueError(
            f"Environment {environment!r} is not ready to synthesize:{listed}\nSet these in config/{environment}.json "
            f"and commit it (an ARN or an address is not a secret), or pass one for a single run with "
            f"CONTEXT='-c {settings.ALARM_TOPIC_ARN.name}=arn:<partition>:sns:<region>:<account>:<topic>'."
        )
