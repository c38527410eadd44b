"""Cognito user pool whose ID tokens the API's authorizer checks (docs/api.md, "Caller identity and ownership")."""

from __future__ import annotations

from aws_cdk import Acknowledgment, Duration, RemovalPolicy, Stack, Validations
from aws_cdk import aws_cognito as cognito
from constructs import Construct

from infra import constants, naming, settings

THREAT_PROTECTION = {
    "enforced": cognito.StandardThreatProtectionMode.FULL_FUNCTION,
    "audit": cognito.StandardThreatProtectionMode.AUDIT_ONLY,
}


def _email(scope: Construct) -> cognito.UserPoolEmail | None:
    """SES when `sesFromEmail` names a verified identity; otherwise Cognito's default sender (a few mails a day, from
    a no-reply address of Amazon's), which only a sandbox environment may keep."""
    # A named environment other than the sandbox has one (infra/readiness.py refuses it otherwise).
    sender = settings.text(scope, settings.SES_FROM_EMAIL)
    if not sender:
        return None
    if "@" not in sender:
        raise ValueError(f"context {settings.SES_FROM_EMAIL.name}: {sender!r} is not an email address")
    return cognito.UserPoolEmail.with_ses(from_email=sender, ses_region=Stack.of(scope).region)


def _oauth(scope: Construct) -> tuple[bool, cognito.OAuthSettings | None]:
    """OAuth off unless callback URLs are configured; then the authorization-code flow only (no implicit flow)."""
    callbacks = settings.text_list(scope, settings.OAUTH_CALLBACK_URLS)
    for url in callbacks:
        if not url.startswith("https://"):
            raise ValueError(f"context {settings.OAUTH_CALLBACK_URLS.name}: {url!r} is not an https:// URL")
    if not callbacks:
        return True, None
    flows = cognito.OAuthFlows(authorization_code_grant=True, implicit_code_grant=False, client_credentials=False)
    scopes = [cognito.OAuthScope.OPENID, cognito.OAuthScope.EMAIL]
    return False, cognito.OAuthSettings(flows=flows, scopes=scopes, callback_urls=callbacks)


class Auth(Construct):
    """User pool, its `admin` group and a public app client for obtaining tokens."""

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id)
        disable_oauth, oauth = _oauth(self)
        protection = settings.choice(self, settings.COGNITO_THREAT_PROTECTION, ("enforced", "audit", "off"))
        self.mfa = settings.choice(self, settings.COGNITO_MFA, ("required", "optional"))
        environment = naming.environment(self)  # optional MFA only in the sandbox (infra/readiness.py)
        self.user_pool = cognito.UserPool(
            self,
            "UserPool",
            # Accounts are owned by the token's `sub`; users are created by an operator, not by self sign-up.
            self_sign_up_enabled=False,
            sign_in_aliases=cognito.SignInAliases(username=True, email=True),
            password_policy=cognito.PasswordPolicy(
                min_length=12,
                require_lowercase=True,
                require_uppercase=True,
                require_digits=True,
                require_symbols=True,
                temp_password_validity=Duration.days(3),
            ),
            # Required: every user, admins included, signs in with TOTP; the stack enforces it, not an operator step.
            mfa=cognito.Mfa.REQUIRED if self.mfa == "required" else cognito.Mfa.OPTIONAL,
            mfa_second_factor=cognito.MfaSecondFactor(otp=True, sms=False),
            account_recovery=cognito.AccountRecovery.EMAIL_ONLY,
            # Threat protection (compromised credentials, risky sign-ins) needs the Plus plan.
            feature_plan=cognito.FeaturePlan.PLUS if protection != "off" else cognito.FeaturePlan.ESSENTIALS,
            standard_threat_protection_mode=THREAT_PROTECTION.get(protection),
            email=_email(self),
            # Table items reference users by `sub`: losing the pool would orphan every account. Retained except on
            # create, so a first deploy that rolls back deletes it; protected once it exists (as the table).
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
            deletion_protection=settings.flag(self, settings.DELETION_PROTECTION),
        )
        self.admin_group = cognito.UserPoolGroup(
            self,
            "AdminGroup",
            user_pool=self.user_pool,
            group_name=constants.ADMIN_GROUP,
            description="May read any account and run the lock audit.",
        )
        self.client = self.user_pool.add_client(
            "AppClient",
            # A public client (CLI, tests, SPA) cannot keep a secret.
            generate_secret=False,
            auth_flows=cognito.AuthFlow(user_srp=True, user_password=False, admin_user_password=True),
            prevent_user_existence_errors=True,
            id_token_validity=Duration.hours(1),
            access_token_validity=Duration.hours(1),
            refresh_token_validity=Duration.days(1),
            # CDK's default would turn on the implicit and code flows with callback https://example.com.
            disable_o_auth=disable_oauth,
            o_auth=oauth,
        )

        sandbox = f"{environment or 'this app'} is a sandbox ({settings.COGNITO_MFA.name}=optional in its config)"
        if self.mfa != "required":
            Validations.of(self.user_pool).acknowledge(
                Acknowledgment(
                    id="AwsSolutions-COG2",
                    reason=f"{sandbox}: its users are the team's test users. Every other environment requires TOTP "
                    "(the stack refuses optional MFA there).",
                )
            )
        if protection == "off":
            Validations.of(self.user_pool).acknowledge(
                Acknowledgment(
                    id="AwsSolutions-COG8",
                    reason=f"{environment or 'this app'} sets {settings.COGNITO_THREAT_PROTECTION.name}=off: its users "
                    "are test users, so the Plus plan's per-user price buys nothing there; production runs threat "
                    "protection enforced (docs/infra.md, 'Cognito').",
                )
            )
