"""The table's stream (not an API route): the library's settlement handler (`ddbguard_jobs.settle_entries`).

Each balance named by a new ledger entry is settled once per batch; a record whose balance failed is reported back
(a partial batch response), and a batch that keeps failing goes to the on-failure queue (infra/settlement.py).
"""

from ddbguard_jobs.settle_entries import handler

__all__ = ["handler"]
