"""Scheduled sweeper (EventBridge; not an API route): the library's handler (`ddbguard_jobs.sweep_pending`), which
settles every balance whose `pending` values grew old (infra/settlement.py schedules it)."""

from ddbguard_jobs.sweep_pending import handler

__all__ = ["handler"]
