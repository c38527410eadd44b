"""`Record`: the base of ddbguard's value types of more than three fields.

A record is a plain class whose `__slots__` name its fields and whose `__init__` takes them by keyword only: named
where it is built (`BalanceChange(account_id=..., entry_type=...)`), never a tuple, so it is never compared with or
unpacked as one. This base compares, hashes and shows a record by its fields, and copies it with changes. Why not
`@dataclass(slots=True, kw_only=True)`: a dataclass compiles its methods at import, about 1 ms a class on a cold start
(docs/decisions/003-records-are-classes-with-slots.md), and a handler imports several.
"""

from __future__ import annotations

from typing import Any, Self

__all__ = ["Record"]


class Record:
    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and isinstance(other, Record) and other._values() == self._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def replaced(self, **changes: Any) -> Self:
        """A copy with `changes` (field name -> value)."""
        return type(self)(**{**{name: getattr(self, name) for name in self.__slots__}, **changes})
