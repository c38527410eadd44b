"""What clients see of a ledger's items: its balance and its entries, nothing else strips keys or bookkeeping.

An entity's items (accounts, orders) are projected by their declaration (`Entity.project`, from its fields). A
ledger's balance and entries are no entity: each projection's fields are its view's (`ddbguard.domain.views`), read
from the view's declaration, so a field is named once. A stored item comes back from the store untyped (`Item`);
picking the view's fields from it is where it becomes the view, hence the one `cast` per projection.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from ddbguard.domain.views import BalanceView, EntryView
from ddbguard.store.attribute_names import AVAILABLE_CENTS, CLEARED_CENTS, HOLD_CENTS, VERSION

__all__ = ["BALANCE_FIELDS", "ENTRY_DETAILS", "ENTRY_FIELDS", "Stored", "public_balance", "public_entry"]

BALANCE_FIELDS = tuple(BalanceView.__annotations__)
# Always present on an entry; the rest only where its type has them (holdId, orderId, transferId, ...).
ENTRY_FIELDS = tuple(name for name in EntryView.__annotations__ if name in EntryView.__required_keys__)
ENTRY_DETAILS = tuple(name for name in EntryView.__annotations__ if name in EntryView.__optional_keys__)

# A stored item, or one about to be stored: attribute name -> value.
Stored = Mapping[str, object]


def _pick(item: Stored, fields: tuple[str, ...]) -> dict[str, object]:
    return {name: item.get(name) for name in fields}


def public_balance(item: Stored) -> BalanceView:
    public = _pick(item, BALANCE_FIELDS)
    for name in (CLEARED_CENTS, HOLD_CENTS, AVAILABLE_CENTS, VERSION):
        public[name] = int(cast(int, item[name]))
    return cast(BalanceView, public)


def public_entry(item: Stored) -> EntryView:
    """The fields an entry has (details only where its type has them); `availableCentsAfter` is null until
    known (the statement and the replies fill it in)."""
    public = _pick(item, ENTRY_FIELDS)
    public.update({name: item[name] for name in ENTRY_DETAILS if name in item})
    return cast(EntryView, public)
