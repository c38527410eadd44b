"""Backups a payments team can restore from: a daily AWS Backup of the table, kept as configured, optionally copied
to a vault in another account or region (point-in-time recovery, on the table itself, covers the last 35 days to
the second; these are the copies that outlive a deleted table, a compromised account or a region).

`backupRetentionDays=0` leaves the plan out (dev). The vault is retained when the stack goes: its recovery points
are the table's history. With `tableCustomerManagedKey`, the vault encrypts with the table's key.
"""

from __future__ import annotations

from aws_cdk import Acknowledgment, Duration, RemovalPolicy, Validations
from aws_cdk import aws_backup as backup
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_events as events
from aws_cdk import aws_kms as kms
from constructs import Construct

from infra import settings

# 05:17 UTC: after the night's quiet hours, off the hour.
BACKUP_HOUR = "5"
BACKUP_MINUTE = "17"


class TableBackups(Construct):
    """A vault, a daily plan and its selection of the table."""

    def __init__(
        self, scope: Construct, construct_id: str, *, table: dynamodb.ITable, key: kms.IKey | None, days: int
    ) -> None:
        super().__init__(scope, construct_id)
        copy_vault_arn = settings.text(self, settings.BACKUP_COPY_VAULT_ARN)
        self.vault = backup.BackupVault(
            self,
            "Vault",
            encryption_key=key,
            # Kept when the stack goes or drops it; deleted only when the deploy that created it rolls back (empty
            # then). Plain RETAIN would leave it behind after a failed first deploy, and its fixed name would make
            # the retry fail ("already exists").
            removal_policy=RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
        )
        copies = (
            [
                backup.BackupPlanCopyActionProps(
                    destination_backup_vault=backup.BackupVault.from_backup_vault_arn(
                        self, "CopyVault", copy_vault_arn
                    ),
                    delete_after=Duration.days(days),
                )
            ]
            if copy_vault_arn
            else None
        )
        self.plan = backup.BackupPlan(
            self,
            "Plan",
            backup_vault=self.vault,
            backup_plan_rules=[
                backup.BackupPlanRule(
                    rule_name="Daily",
                    schedule_expression=events.Schedule.cron(hour=BACKUP_HOUR, minute=BACKUP_MINUTE),
                    delete_after=Duration.days(days),
                    copy_actions=copies,
                )
            ],
        )
        selection = self.plan.add_selection(
            "Table", resources=[backup.BackupResource.from_dynamo_db_table(table)], allow_restores=False
        )
        Validations.of(selection.node.find_child("Role")).acknowledge(
            Acknowledgment(
                id="AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
                "AWSBackupServiceRolePolicyForBackup]",
                reason="The role AWS Backup assumes to take the table's backups: AWS's managed policy for it is the "
                "documented grant, kept current by AWS as Backup's actions change, and only backup.amazonaws.com can "
                "assume the role.",
            )
        )


def table_backups(scope: Construct, table: dynamodb.ITable, key: kms.IKey | None) -> TableBackups | None:
    days = settings.count(scope, settings.BACKUP_RETENTION_DAYS)
    if days == 0:
        return None
    if days < 7:
        raise ValueError(f"context {settings.BACKUP_RETENTION_DAYS.name}={days}: keep daily backups 7 days or more")
    return TableBackups(scope, "Backup", table=table, key=key, days=days)
