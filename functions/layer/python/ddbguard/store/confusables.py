"""One lock key per address however it is spelled: Unicode's UTS #39 skeleton, made case-insensitive.

UTS #39 builds a skeleton as NFD, each character replaced by its prototype from confusables.txt, NFD again.
The data is case-sensitive: `Κ` (Greek capital kappa) has the prototype `K`, but its lower case `κ` has none
that is ASCII. Folding case first (as the stored value is folded) would therefore hide a capital's look-alike,
so a character's comparable form is chosen over its whole case class: the ASCII look-alike of the character
itself, else that of any character that folds to it (its capitals and compatibility variants), in code point
order. `ΚΑΤΕ`, `κατε` and `kate` all reach `kate`; an address and its capitals always reach one key.

A character whose folded form belongs to another look-alike class is refused (`is_ambiguous`): `ϲ`, Greek lunate
sigma, looks like `c`, but NFKC makes it `σ`, which looks like `o`; `Ν`, Greek capital nu, looks like `N`, its lower
case `ν` like `v`. Either way of keying it would leave a twin beside a taken address.

ASCII characters are their own prototypes: TR39 maps `1` and `I` to `l`, `0` to `O` and `m` to `rn`, which would
make `bill1` and `billl` one address. Pure-ASCII values keep the keys they always had. These are the rule's
documented exceptions (docs/api.md), listed in tests/unit/test_confusable_skeleton.py.

The data is Unicode's confusables.txt (its version is in `confusables.tsv`'s header, compacted by
scripts/compact_confusables.py); it is read on the first non-ASCII value only, so a cold start never pays for it.
ICU's spoof checker (PyICU) would compute the plain skeleton, but PyICU publishes no wheels for Lambda's runtimes
(docs/decisions.md).
"""

from __future__ import annotations

import unicodedata
from functools import cache
from pathlib import Path

_DATA = Path(__file__).with_name("confusables.tsv")


@cache
def _listed() -> dict[str, str]:
    """Each listed character -> its prototype (NFD), as confusables.txt gives it."""
    listed: dict[str, str] = {}
    for line in _DATA.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            source, target = line.split("\t")
            listed[chr(int(source, 16))] = "".join(chr(int(point, 16)) for point in target.split())
    return listed


@cache
def _prototypes() -> dict[str, str]:
    """The listed non-ASCII characters -> their prototypes: ASCII is its own prototype (see the module text)."""
    return {character: prototype for character, prototype in _listed().items() if not character.isascii()}


@cache
def ascii_shapes() -> tuple[frozenset[str], ...]:
    """The ASCII letters and digits TR39 gives one prototype and this key keeps apart, each group folded: from the
    data, ({'1', 'i', 'l'}, {'0', 'o'}, {'m', 'rn'}). Punctuation is left out: a look-alike of `l` that folds to `|`
    is refused, not keyed as `l`."""
    groups: dict[str, set[str]] = {}
    for character, prototype in _listed().items():
        both_ascii_alphanumeric = all(text.isascii() and text.isalnum() for text in (character, prototype))
        if both_ascii_alphanumeric and character != prototype:
            groups.setdefault(prototype.casefold(), {prototype.casefold()}).add(character.casefold())
    return tuple(frozenset(group) for _, group in sorted(groups.items()))


def data_version() -> str:
    """The Unicode version of the confusables data the keys are built from."""
    for line in _DATA.read_text(encoding="utf-8").splitlines():
        if line.startswith("# Version:"):
            return line.partition(":")[2].strip()
    raise ValueError("confusables.tsv has no Version header")


def folded(value: str) -> str:
    """NFKC, full case folding, NFKC again: the stored form of a unique value (before trimming)."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", value).casefold())


def _ascii_look_alike(character: str) -> str | None:
    """The character's prototype, case-folded, when that is ASCII; None otherwise."""
    prototype = _prototypes().get(character)
    if prototype is None:
        return None
    folded_prototype = prototype.casefold()
    return folded_prototype if folded_prototype.isascii() else None


@cache
def _case_classes() -> dict[str, tuple[str, ...]]:
    """Folded character -> the listed characters that fold to it (capitals, compatibility variants)."""
    classes: dict[str, list[str]] = {}
    for character in _prototypes():
        target = unicodedata.normalize("NFD", folded(character))
        if len(target) == 1 and target != character:
            classes.setdefault(target, []).append(character)
    return {target: tuple(sorted(members)) for target, members in classes.items()}


@cache
def _comparable_character(character: str) -> str:
    if character.isascii():
        return character
    look_alike = _ascii_look_alike(character)
    if look_alike is not None:
        return look_alike
    for member in _case_classes().get(character, ()):
        look_alike = _ascii_look_alike(member)
        if look_alike is not None:
            return look_alike
    prototype = _prototypes().get(character)
    return character if prototype is None else unicodedata.normalize("NFD", prototype.casefold())


def comparable_form(normalised: str) -> str:
    """The UTS #39 skeleton of a stored (folded) value over case classes, composed (NFC) for a readable key."""
    if normalised.isascii():
        return normalised
    decomposed = unicodedata.normalize("NFD", normalised)
    return unicodedata.normalize("NFC", "".join(_comparable_character(ch) for ch in decomposed))


def _same_shape(first: str, second: str) -> bool:
    return first == second or any({first, second} <= group for group in ascii_shapes())


@cache
def is_ambiguous(character: str) -> bool:
    """A character whose own ASCII look-alike is not the one its folded form reaches: `Ν` (Greek capital nu)
    looks like N, its fold `ν` like v; `ϲ` looks like c, its fold `σ` like o. Folding would move it to another
    letter's key, and keeping it would split one address (its capital and lower case) over two keys: refused."""
    if character.isascii():
        return False
    look_alike = _ascii_look_alike(character)
    if look_alike is None:
        return False
    folded_form = comparable_form(folded(character))
    return not (folded_form.isascii() and _same_shape(look_alike, folded_form))


def fold_keeping_ambiguous(value: str) -> str:
    """`folded(value)`, except that ambiguous characters stay as sent, so the value's check can name them."""
    if value.isascii():
        return folded(value)
    decomposed = unicodedata.normalize("NFD", value)
    if not any(is_ambiguous(ch) for ch in decomposed):
        return folded(value)
    parts: list[str] = []
    run: list[str] = []
    for character in decomposed:
        if is_ambiguous(character):
            parts.extend((folded("".join(run)), character))
            run = []
        else:
            run.append(character)
    parts.append(folded("".join(run)))
    return "".join(parts)


def ambiguous_characters(value: str) -> list[str]:
    """The ambiguous characters a value holds, in order, each once."""
    if value.isascii():
        return []
    return list(dict.fromkeys(ch for ch in unicodedata.normalize("NFD", value) if is_ambiguous(ch)))


def lock_value(value: str) -> str:
    """What a lock key is spelled from: the comparable form of the stored value (itself when ASCII)."""
    return comparable_form(value)
