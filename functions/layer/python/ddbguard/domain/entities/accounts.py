"""The account: global ids, versioned, email and username unique (NFKC + case-fold), listed under its owner, open to
incoming transfers until closing."""

from ddbguard.domain.normalize import EMAIL, HANDLE
from ddbguard.domain.projections import ACCOUNT_FIELDS
from ddbguard.guards.entity import Entity, Unique
from ddbguard.store import keys, schema

# ACCT#<accountId> / PROFILE (the published keys of docs/data-model.md, not the kind's defaults); 404 account_not_found.
ACCOUNT = Entity(
    "account",
    ACCOUNT_FIELDS,
    prefix=keys.ACCOUNT_PREFIX,
    sort=keys.ACCOUNT_SORT,
    unique=(Unique(schema.EMAIL, EMAIL), Unique(schema.USERNAME, HANDLE, lock="HANDLE")),
    owner_index=True,
    admin_reads=True,
    defaults={schema.CLOSING: False},  # accounts made before closing existed are open
)
