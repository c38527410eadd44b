"""The account: global ids, versioned, email and username unique (NFKC + case-fold), listed under its owner, open to
incoming transfers until closing. Its rules beyond the declaration: `ddbguard.domain.accounts`."""

from ddbguard.domain import normalize
from ddbguard.guards.entity import Entity
from ddbguard.guards.fields import flag, text, unique
from ddbguard.limits import DISPLAY_NAME_MAX_CHARS
from ddbguard.store import keys
from ddbguard.store.attribute_names import CLOSING, DISPLAY_NAME, EMAIL, USERNAME

__all__ = ["ACCOUNT"]

# ACCT#<accountId> / PROFILE (the published keys of docs/data-model.md, not the kind's defaults); 404 account_not_found.
ACCOUNT = Entity(
    "account",
    prefix=keys.ACCOUNT_PREFIX,
    sort=keys.ACCOUNT_SORT,
    owner_index=True,
    admin_reads=True,
    fields={
        EMAIL: unique(normalize.EMAIL, "try@openapi.example"),
        USERNAME: unique(normalize.HANDLE, "try_it", lock="HANDLE"),
        DISPLAY_NAME: text(
            "Try",
            max_length=DISPLAY_NAME_MAX_CHARS,
            required=False,
            description="Shown as written (NFC), trimmed; shows at least one visible character (spaces, fillers, blank"
            " symbols and lone marks alone do not), no control or invisible format characters. Null when never given:"
            " the service does not invent a name.",
        ),
        # Accounts made before closing existed are open: the default is what they read as.
        CLOSING: flag(
            default=False,
            on_create=False,
            description="true closes the account to incoming transfers (senders get 409 account_closing; the owner's"
            " own movements go on), false opens it again.",
        ),
    },
)
