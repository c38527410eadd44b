"""Cognito user pool whose ID tokens the API's authorizer checks (docs/api.md, "Caller identity and ownership")."""

from __future__ import annotations

from aws_cdk import Acknowledgment, Duration, RemovalPolicy, Validations
from aws_cdk import aws_cognito as cognito
from constructs import Construct

from infra import constants


class Auth(Construct):
    """User pool, its `admin` group and a public app client for obtaining tokens."""

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id)
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
            mfa=cognito.Mfa.OPTIONAL,
            mfa_second_factor=cognito.MfaSecondFactor(otp=True, sms=False),
            account_recovery=cognito.AccountRecovery.EMAIL_ONLY,
            feature_plan=cognito.FeaturePlan.ESSENTIALS,
            # Table items reference users by `sub`: losing the pool would orphan every account.
            removal_policy=RemovalPolicy.RETAIN,
            deletion_protection=True,
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
        )

        Validations.of(self.user_pool).acknowledge(
            Acknowledgment(
                id="AwsSolutions-COG2",
                reason="MFA is OPTIONAL (TOTP) so demo and test users can sign in non-interactively; "
                "a production pool would set it to REQUIRED.",
            ),
            Acknowledgment(
                id="AwsSolutions-COG8",
                reason="The Plus feature plan (threat protection) is billed per active user; the Essentials plan "
                "with a strong password policy and no self sign-up is proportionate for this demo service.",
            ),
        )
