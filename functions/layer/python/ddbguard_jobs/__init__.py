"""ddbguard's background jobs as Lambda handlers, for any table the guards write: the stream's settlement
(`settle_entries`), the scheduled sweeper (`sweep_pending`) and the lock audit's segment worker (`audit_locks`), with
what each may do to the table (`access`).

The product's functions (functions/streams/, functions/audit/) are these handlers; `ddbguard_cdk.GuardedTable`
deploys them in a team's own stack, from the installed wheel.
"""

__all__ = ["access", "audit_locks", "entity_modules", "settle_entries", "sweep_pending"]
