"""The account: global ids, versioned, email and username unique (NFKC + case-fold), listed under its owner."""

from ddbguard.domain.normalize import EMAIL, HANDLE
from ddbguard.domain.projections import ACCOUNT_FIELDS
from ddbguard.guards.entity import Entity, Unique
from ddbguard.store import keys

ACCOUNT = Entity(
    kind="account",
    prefix=keys.ACCOUNT_PREFIX,
    sort=keys.ACCOUNT_SORT,
    id_field="accountId",
    public=ACCOUNT_FIELDS,
    not_found="account_not_found",
    unique=(Unique("email", EMAIL), Unique("username", HANDLE, lock="HANDLE")),
    owner_index=True,
)
