"""Unicode's look-alike data, as the lock values are built from it (`ddbguard.store.readings`).

`confusables.tsv` holds, in sections, from one Unicode version (its header names it; `make confusables` writes it):

- `prototypes`: UTS #39 confusables.txt, each character -> its prototype (the skeleton's mapping);
- `soft-dotted`: Unicode's Soft_Dotted property (PropList.txt): i, j and the letters whose dot a dot above replaces;
- `small-capitals`: the reading of a small capital letter -> the reading of its capital (a listed addition);
- `dominated`: readings that every character showing them also shows another way (dropped: computed, exact);
- `misread`: characters whose normal form reads as another character (`ſ` looks like f and is stored as s).

It is read on the first non-ASCII value only, so a cold start never pays for it. ICU's spoof checker (PyICU) would
compute the plain skeleton, but PyICU publishes no wheels for Lambda's runtimes
(docs/decisions/049-one-lock-per-reading-of-a-value.md).
"""

from __future__ import annotations

import unicodedata
from functools import cache
from pathlib import Path

from ddbguard.records import Record

__all__ = ["DATA", "LookAlikeData", "data", "data_version", "parse", "skeleton"]

DATA = Path(__file__).with_name("confusables.tsv")


class LookAlikeData(Record):
    """The look-alike data, by section of confusables.tsv."""

    __slots__ = ("dominated", "misread", "prototypes", "small_capitals", "soft_dotted")

    def __init__(
        self,
        *,
        prototypes: dict[str, str],
        soft_dotted: frozenset[str],
        small_capitals: dict[str, str],
        dominated: dict[str, str],
        misread: frozenset[str],
    ) -> None:
        self.prototypes = prototypes
        self.soft_dotted = soft_dotted
        self.small_capitals = small_capitals
        self.dominated = dominated
        self.misread = misread


def _text(hex_points: str) -> str:
    return "".join(chr(int(point, 16)) for point in hex_points.split())


def _characters(field: str) -> list[str]:
    first, _, last = field.partition("..")
    return [chr(code) for code in range(int(first, 16), int(last or first, 16) + 1)]


def parse(text: str) -> LookAlikeData:
    sections: dict[str, list[list[str]]] = {}
    current: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], [])
        elif line and not line.startswith("#"):
            current.append(line.split("\t"))
    return LookAlikeData(
        prototypes={_text(source): _text(target) for source, target in sections.get("prototypes", [])},
        soft_dotted=frozenset(ch for (field,) in sections.get("soft-dotted", []) for ch in _characters(field)),
        small_capitals={_text(source): _text(target) for source, target in sections.get("small-capitals", [])},
        dominated={_text(source): _text(target) for source, target in sections.get("dominated", [])},
        misread=frozenset(ch for (field,) in sections.get("misread", []) for ch in _characters(field)),
    )


@cache
def data() -> LookAlikeData:
    return parse(DATA.read_text(encoding="utf-8"))


def data_version() -> str:
    """The Unicode version of the data the lock values are built from."""
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line.startswith("# Version:"):
            return line.partition(":")[2].strip()
    raise ValueError("confusables.tsv has no Version header")


def skeleton(text: str, prototypes: dict[str, str] | None = None) -> str:
    """UTS #39 skeleton: NFD, each character replaced by its prototype, NFD again."""
    mapping = data().prototypes if prototypes is None else prototypes
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(mapping.get(ch, ch) for ch in decomposed))
