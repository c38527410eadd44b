"""The edge in front of the stage: a WAF web ACL with AWS's managed rule groups, per-client rate limits and logging.

Written on `aws-cdk-lib`'s `aws_wafv2` (the L1 resources) rather than AWS Solutions Constructs'
`aws-wafwebacl-apigateway`: that construct's releases pin `aws-cdk-lib` exactly (2.105.0 pins 2.273.0, two releases
behind this stack's pin), and what it adds over the L1 is the association, which is one resource here. The rules
are AWS's own groups plus two rate rules; nothing is matched by hand.

- Per-client limits: one rate-based rule keyed on the caller's token (the `Authorization` header: requests without
  one are not counted by it) and one on the source IP, each answering 429 with a problem body and `Retry-After`.
  A single caller therefore reaches at most `wafTokenRateLimit` requests a minute, a small share of any route's
  throttle (docs/capacity.md, "The edge"), and cannot starve the others on that route.
- Managed rule groups: IP reputation, known bad inputs, the core rule set. The core set's body-size rule is counted,
  not enforced: it blocks bodies over 8 KB, while the API takes up to 64 KiB and answers 413 itself above that.
  A request a managed rule blocks reaches no handler: API Gateway answers 403 `forbidden` (WAF_FILTERED, infra/api.py).
- Logging to a CloudWatch log group (`aws-waf-logs-<stack>`, the prefix WAF requires) kept as long as the access log
  and retained with it, the `Authorization` header redacted.
"""

from __future__ import annotations

from aws_cdk import Acknowledgment, ArnFormat, RemovalPolicy, Stack, Validations
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_logs as logs
from aws_cdk import aws_wafv2 as wafv2
from constructs import Construct

from infra import naming, settings
from infra.gateway_problems import gateway_problem_body

# WAF counts a rate rule's requests over this window (60, 120, 300 or 600 s); the limits are per window.
RATE_WINDOW_SECONDS = 60
# WAF refuses a rate limit below this.
MINIMUM_RATE_LIMIT = 10
THROTTLED_BODY_KEY = "throttled"
# The managed groups, in evaluation order after the rate rules (each: vendor, name, rules counted not blocked).
MANAGED_RULE_GROUPS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("AWS", "AWSManagedRulesAmazonIpReputationList", ()),
    ("AWS", "AWSManagedRulesKnownBadInputsRuleSet", ()),
    # Bodies up to 64 KiB are the API's own limit (413 above it, from the handlers); the core set stops at 8 KB.
    ("AWS", "AWSManagedRulesCommonRuleSet", ("SizeRestrictions_BODY",)),
)
AUTHORIZATION_HEADER = "authorization"


def _visibility(metric_name: str) -> wafv2.CfnWebACL.VisibilityConfigProperty:
    return wafv2.CfnWebACL.VisibilityConfigProperty(
        cloud_watch_metrics_enabled=True, metric_name=metric_name, sampled_requests_enabled=True
    )


def _rate_rule(
    name: str, priority: int, key: wafv2.CfnWebACL.RateBasedStatementProperty
) -> wafv2.CfnWebACL.RuleProperty:
    return wafv2.CfnWebACL.RuleProperty(
        name=name,
        priority=priority,
        statement=wafv2.CfnWebACL.StatementProperty(rate_based_statement=key),
        action=wafv2.CfnWebACL.RuleActionProperty(
            block=wafv2.CfnWebACL.BlockActionProperty(
                custom_response=wafv2.CfnWebACL.CustomResponseProperty(
                    response_code=429,
                    custom_response_body_key=THROTTLED_BODY_KEY,
                    response_headers=[
                        wafv2.CfnWebACL.CustomHTTPHeaderProperty(name="Retry-After", value=str(RATE_WINDOW_SECONDS))
                    ],
                )
            )
        ),
        visibility_config=_visibility(name),
    )


def rate_limit(scope: Construct, key: settings.ContextKey) -> int:
    limit = settings.whole_number(scope, key)
    if limit < MINIMUM_RATE_LIMIT:
        raise ValueError(f"context {key.name}={limit}: WAF's rate limits start at {MINIMUM_RATE_LIMIT} a window")
    return limit


class Edge(Construct):
    """The web ACL on the stage (when `wafEnabled`), its log group and its logging configuration."""

    def __init__(self, scope: Construct, construct_id: str, *, stage: apigw.Stage, log_retention: logs.RetentionDays):
        super().__init__(scope, construct_id)
        self.token_limit = rate_limit(self, settings.WAF_TOKEN_RATE_LIMIT)
        self.ip_limit = rate_limit(self, settings.WAF_IP_RATE_LIMIT)
        rules = [
            _rate_rule(
                "RateLimitPerToken",
                0,
                wafv2.CfnWebACL.RateBasedStatementProperty(
                    aggregate_key_type="CUSTOM_KEYS",
                    limit=self.token_limit,
                    evaluation_window_sec=RATE_WINDOW_SECONDS,
                    custom_keys=[
                        wafv2.CfnWebACL.RateBasedStatementCustomKeyProperty(
                            header=wafv2.CfnWebACL.RateLimitHeaderProperty(
                                name=AUTHORIZATION_HEADER,
                                text_transformations=[
                                    wafv2.CfnWebACL.TextTransformationProperty(priority=0, type="NONE")
                                ],
                            )
                        )
                    ],
                ),
            ),
            _rate_rule(
                "RateLimitPerIp",
                1,
                wafv2.CfnWebACL.RateBasedStatementProperty(
                    aggregate_key_type="IP", limit=self.ip_limit, evaluation_window_sec=RATE_WINDOW_SECONDS
                ),
            ),
        ]
        for index, (vendor, name, counted) in enumerate(MANAGED_RULE_GROUPS, start=len(rules)):
            rules.append(
                wafv2.CfnWebACL.RuleProperty(
                    name=name,
                    priority=index,
                    statement=wafv2.CfnWebACL.StatementProperty(
                        managed_rule_group_statement=wafv2.CfnWebACL.ManagedRuleGroupStatementProperty(
                            vendor_name=vendor,
                            name=name,
                            rule_action_overrides=[
                                wafv2.CfnWebACL.RuleActionOverrideProperty(
                                    name=rule,
                                    action_to_use=wafv2.CfnWebACL.RuleActionProperty(
                                        count=wafv2.CfnWebACL.CountActionProperty()
                                    ),
                                )
                                for rule in counted
                            ]
                            or None,
                        )
                    ),
                    override_action=wafv2.CfnWebACL.OverrideActionProperty(none={}),
                    visibility_config=_visibility(name),
                )
            )
        stack_name = Stack.of(self).stack_name
        self.web_acl = wafv2.CfnWebACL(
            self,
            "WebAcl",
            name=naming.with_environment(self, "ddbguard-api"),
            scope="REGIONAL",
            description="ddbguard API stage: per-client rate limits and AWS managed rule groups",
            default_action=wafv2.CfnWebACL.DefaultActionProperty(allow={}),
            rules=rules,
            custom_response_bodies={
                THROTTLED_BODY_KEY: wafv2.CfnWebACL.CustomResponseBodyProperty(
                    content_type="APPLICATION_JSON",
                    content=gateway_problem_body(
                        429, "throttled", "Too many requests from this client; retry after a minute."
                    ),
                )
            },
            visibility_config=_visibility("ddbguard-api"),
        )
        self.association = wafv2.CfnWebACLAssociation(
            self, "StageAssociation", resource_arn=stage.stage_arn, web_acl_arn=self.web_acl.attr_arn
        )
        # The stage ARN is built from names, not a reference: the association must wait for the stage itself.
        self.association.node.add_dependency(stage)
        # WAF requires the `aws-waf-logs-` prefix; kept like the access log (same retention, retained on delete).
        self.log_group = logs.LogGroup(
            self,
            "Logs",
            log_group_name=f"aws-waf-logs-{stack_name}",
            retention=log_retention,
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        # WAF takes the log group's ARN without the `:*` suffix CDK's `log_group_arn` carries.
        log_group_arn = Stack.of(self).format_arn(
            service="logs",
            resource="log-group",
            resource_name=self.log_group.log_group_name,
            arn_format=ArnFormat.COLON_RESOURCE_NAME,
        )
        self.logging = wafv2.CfnLoggingConfiguration(
            self,
            "Logging",
            resource_arn=self.web_acl.attr_arn,
            log_destination_configs=[log_group_arn],
            # The caller's token never reaches the log.
            redacted_fields=[
                wafv2.CfnLoggingConfiguration.FieldToMatchProperty(
                    single_header={"Name": AUTHORIZATION_HEADER},
                )
            ],
        )
        self.logging.node.add_dependency(self.log_group)


def protect(scope: Construct, stage: apigw.Stage, log_retention: logs.RetentionDays) -> Edge | None:
    """The web ACL on `stage`, or (with `wafEnabled=false`) none, and cdk-nag's finding about it acknowledged with
    the configuration's own reason."""
    if settings.flag(scope, settings.WAF_ENABLED):
        return Edge(scope, "Edge", stage=stage, log_retention=log_retention)
    environment = naming.environment(scope) or "this app"
    Validations.of(stage).acknowledge(
        Acknowledgment(
            id="AwsSolutions-APIG3",
            reason=f"{environment} sets {settings.WAF_ENABLED.name}=false in its configuration: it takes no "
            "production traffic (every environment that does keeps the web ACL, docs/infra.md 'The edge'); "
            "every route but /health still needs a Cognito token and the stage stays throttled.",
        )
    )
    return None
