"""A transaction plan with named slots: actions are added by name, and cancellation reasons read back by name.

DynamoDB reports a cancelled TransactWriteItems as one reason per action, in request order. Counting
those positions by hand (a marker in front shifts everything by one, releases come after the
reserves) is where bugs hide, so this is the one place that does: every other module names its
slots ("item", "lock:email", "request marker") and asks the refusal about a name.

A slot holds zero or more actions (a group, e.g. the locks a change releases); asking a group
which members failed answers positions within the group.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ddbguard.store import writes
from ddbguard.store.shapes import Action, Item

__all__ = ["PlanCancelled", "TransactionPlan"]


class _Slot(NamedTuple):
    name: str
    actions: tuple[Action, ...]


class TransactionPlan(NamedTuple):
    """The actions of one transaction, in named slots (immutable: every change returns a new plan)."""

    slots: tuple[_Slot, ...] = ()

    def add(self, name: str, *actions: Action) -> TransactionPlan:
        """This plan with a slot `name` at the end (no actions: an empty slot, never failing)."""
        if name in self.names:
            raise ValueError(f"slot {name!r} is already in the plan")
        return TransactionPlan((*self.slots, _Slot(name, tuple(actions))))

    def prepend(self, name: str, *actions: Action) -> TransactionPlan:
        """This plan with a slot `name` in front."""
        if name in self.names:
            raise ValueError(f"slot {name!r} is already in the plan")
        return TransactionPlan((_Slot(name, tuple(actions)), *self.slots))

    def without(self, name: str, members: Sequence[int]) -> TransactionPlan:
        """This plan with the given members of slot `name` left out."""
        drop = set(members)
        return TransactionPlan(
            tuple(
                _Slot(slot.name, tuple(a for i, a in enumerate(slot.actions) if i not in drop))
                if slot.name == name
                else slot
                for slot in self.slots
            )
        )

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(slot.name for slot in self.slots)

    @property
    def actions(self) -> list[Action]:
        return [action for slot in self.slots for action in slot.actions]

    def _positions(self) -> dict[str, range]:
        positions: dict[str, range] = {}
        start = 0
        for slot in self.slots:
            positions[slot.name] = range(start, start + len(slot.actions))
            start += len(slot.actions)
        return positions

    def commit(self) -> None:
        """Write every action or none; a refusal raises PlanCancelled, read by slot name."""
        try:
            writes.transact_write(self.actions)
        except writes.TransactionCancelled as cancelled:
            raise PlanCancelled(self, cancelled) from None


class PlanCancelled(Exception):
    """Some guards of a plan failed: ask by slot name which, and for their ALL_OLD items."""

    def __init__(self, plan: TransactionPlan, cancelled: writes.TransactionCancelled):
        super().__init__(str(cancelled))
        self.plan = plan
        self.cancelled = cancelled
        self._positions = plan._positions()

    def _range(self, name: str) -> range:
        return self._positions.get(name, range(0))

    def failed(self, name: str) -> bool:
        """True when any action of slot `name` failed its guard (an absent slot never fails)."""
        return any(self.cancelled.failed(i) for i in self._range(name))

    def failed_members(self, name: str) -> list[int]:
        """Positions within slot `name` whose guard failed."""
        return [i for i, position in enumerate(self._range(name)) if self.cancelled.failed(position)]

    def item(self, name: str, member: int = 0) -> Item | None:
        """The ALL_OLD item of member `member` of slot `name` (None: absent, or the slot did not fail)."""
        positions = self._range(name)
        return self.cancelled.item(positions[member]) if member < len(positions) else None

    def failed_elsewhere(self, name: str) -> bool:
        """True when an action outside slot `name` failed."""
        inside = set(self._range(name))
        return any(self.cancelled.failed(i) for i in range(len(self.cancelled.reasons)) if i not in inside)
