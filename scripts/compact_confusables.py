"""Write the layer's look-alike data (`ddbguard/store/confusables.tsv`) from Unicode's own files.

`make confusables SOURCE=<confusables.txt> PROPS=<PropList.txt or ICU's ppucd.txt>` runs it, on the Python whose
`unicodedata` is the files' Unicode version (it refuses another). It writes, in sections:

- `prototypes`: confusables.txt (UTS #39), source<TAB>prototype in hex;
- `soft-dotted`: the Soft_Dotted property, as code point ranges;
- `small-capitals`: each Latin, Greek or Cyrillic small capital's reading -> its capital's reading, from the
  Unicode names (`LATIN LETTER SMALL CAPITAL B` -> `LATIN CAPITAL LETTER B`);
- `dominated`: each reading every letter showing it also shows another way -> that other reading (exact: dropping
  it parts no two values that collide); computed over every letter of the repertoire;
- `misread`: code points whose normal form (NFKC, case-folded) does not read as they do (`ſ` reads f, stored s).

The header keeps the source file's version, date and SHA-256, so a reader can tell which data keys were built from.
"""

from __future__ import annotations

import hashlib
import re
import sys
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "functions/layer/python"))

from ddbguard.limits import DEFAULT_IGNORABLE_CLASS, FORBIDDEN_CHARACTER_CATEGORIES
from ddbguard.store import readings
from ddbguard.store.confusables import LookAlikeData, skeleton

TARGET = Path(__file__).resolve().parents[1] / "functions/layer/python/ddbguard/store/confusables.tsv"
_IGNORABLE = re.compile(f"[{DEFAULT_IGNORABLE_CLASS}]")
_SMALL_CAPITAL = re.compile(r"(LATIN|GREEK|CYRILLIC) LETTER SMALL CAPITAL (.+)")


def _hex(text: str) -> str:
    return " ".join(f"{ord(character):04X}" for character in text)


def _ranges(characters: Iterable[str]) -> list[str]:
    codes = sorted(ord(character) for character in characters)
    ranges: list[list[int]] = []
    for code in codes:
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return [f"{first:04X}" if first == last else f"{first:04X}..{last:04X}" for first, last in ranges]


def parse_confusables(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """(header fields, source -> prototype) of a confusables.txt."""
    header: dict[str, str] = {}
    prototypes: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("#"):
            name, colon, value = line[1:].strip().partition(":")
            if colon and name in ("Date", "Version"):
                header[name] = value.strip()
            continue
        data = line.split("#", 1)[0].strip()
        if data:
            fields = [field.strip() for field in data.split(";")]
            prototypes[chr(int(fields[0], 16))] = "".join(chr(int(p, 16)) for p in fields[1].split())
    if "Version" not in header or not prototypes:
        raise SystemExit("not a confusables.txt: no Version header or no mappings")
    return header, prototypes


def parse_soft_dotted(text: str) -> set[str]:
    """Soft_Dotted from PropList.txt (`0069..006A ; Soft_Dotted`) or ICU's ppucd.txt (`cp;0069..006A;...;SD;...`)."""
    found: set[str] = set()
    for line in text.splitlines():
        if line.startswith("cp;"):
            fields = line.split(";")
            if "SD" in fields[2:]:
                found.update(_span(fields[1]))
        elif "; Soft_Dotted" in line:
            found.update(_span(line.split(";")[0].strip()))
    if not found:
        raise SystemExit("no Soft_Dotted characters found: give PropList.txt or ppucd.txt")
    return found


def _span(field: str) -> Iterator[str]:
    first, _, last = field.partition("..")
    return (chr(code) for code in range(int(first, 16), int(last or first, 16) + 1))


def assigned() -> Iterator[str]:
    """Every code point this Python's Unicode version assigns, but surrogates and private use."""
    for code in range(sys.maxunicode + 1):
        if unicodedata.category(chr(code)) not in ("Cn", "Cs", "Co"):
            yield chr(code)


def folded(text: str) -> str:
    """The stored form of a unique value's text (`ddbguard.domain.normalize`): NFKC, case-folded, NFKC."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def small_capitals(look: LookAlikeData) -> dict[str, str]:
    """Reading of each small capital -> reading of its capital, where they differ and the former is one non-ASCII
    character (an ASCII reading is never rewritten: `ɪ` reads i, which the `i`-as-`l` addition covers)."""
    by_name = {unicodedata.name(ch, ""): ch for ch in assigned()}
    pairs: dict[str, str] = {}
    for name, character in sorted(by_name.items()):
        match = _SMALL_CAPITAL.fullmatch(name)
        capital = by_name.get(f"{match.group(1)} CAPITAL LETTER {match.group(2)}") if match else None
        if capital is None:
            continue
        source, target = readings.reading(character, look, {}), readings.reading(capital, look, {})
        if source != target and len(source) == 1 and not source.isascii():
            pairs[source] = target
    return pairs


def _letters() -> set[str]:
    """Every base character a stored value may hold: those of every code point's folded form, and `ß` and `ς`,
    which a domain keeps (UTS #46 maps the rest of a domain as case folding does)."""
    bases = {"\u00df", "\u03c2"}
    for character in assigned():
        bases.update(base for _, base, _ in readings.units(unicodedata.normalize("NFD", folded(character))))
    return {base for base in bases if not unicodedata.category(base).startswith("M")}


def dominated(look: LookAlikeData) -> dict[str, str]:
    """Readings to drop: every letter's reading set that holds one also holds another (the kept one)."""
    table = readings.translation(look)
    sets: list[set[str]] = []
    for base in sorted(_letters()):
        for domain in (False, True):  # a letter reads without case one way in a local part, another in a domain
            sets.append(set(readings.letter_readings(base, "", False, look, table, domain)))
            if base == "\u03c3":  # a small sigma ending a word reads as final sigma too
                sets.append(set(readings.letter_readings(base, "", True, look, table, domain)))
    tokens_in: dict[str, list[int]] = defaultdict(list)
    for number, readings_of_letter in enumerate(sets):
        for token in readings_of_letter:
            tokens_in[token].append(number)
    # A reading is dropped only if it is one non-ASCII character found inside no other reading, so that no other
    # split of a value's text into letters can show it (`rn` is read as `m` across letters).
    characters_inside: dict[str, int] = defaultdict(int)
    for token in tokens_in:
        for character in set(token):
            characters_inside[character] += 1
    dropped: dict[str, str] = {}
    changed = True
    while changed:
        changed = False
        for token in sorted(tokens_in):
            holders = [sets[number] for number in tokens_in[token] if token in sets[number]]
            if len(token) != 1 or token.isascii() or characters_inside[token] != 1 or not holders:
                continue
            common = set.intersection(*holders) - {token}
            if common:
                dropped[token] = min(common, key=lambda kept: (not kept.isascii(), len(kept), kept))
                for holder in holders:
                    holder.discard(token)
                changed = True
    return dropped


def misread(look: LookAlikeData) -> set[str]:
    """Code points whose stored form does not show the reading they show, where another code point shows it
    (refused: such a value would not collide with its look-alike; alone in its look, a character may be stored
    as normalised). Final sigma is judged where it stands (`ddbguard.domain.normalize`)."""
    table = readings.translation(look)
    looks: dict[str, int] = defaultdict(int)
    for character in assigned():
        if not _excluded(character):
            looks[skeleton(character, look.prototypes)] += 1
    found: set[str] = set()
    for character in assigned():
        if character.isascii() or character == "\u03c2" or _excluded(character):
            continue
        if looks[skeleton(character, look.prototypes)] < 2:
            continue
        own = readings.reading(character, look, table)
        stored = folded(character)
        if not stored or _IGNORABLE.search(stored):
            continue
        try:
            stored_readings = readings.readings(stored, look)
        except readings.TooManyReadings:
            found.add(character)
            continue
        if unicodedata.normalize("NFC", own.replace("rn", "m")) not in stored_readings:
            found.add(character)
    return found


def _excluded(character: str) -> bool:
    """Refused for another reason anyway (format and control characters, default-ignorable ones)."""
    return unicodedata.category(character) in FORBIDDEN_CHARACTER_CATEGORIES or bool(_IGNORABLE.match(character))


def build(confusables: bytes, props: bytes) -> str:
    text = confusables.decode("utf-8-sig")
    header, prototypes = parse_confusables(text)
    if header["Version"] != unicodedata.unidata_version:
        raise SystemExit(
            f"confusables.txt is Unicode {header['Version']}, this Python's unicodedata {unicodedata.unidata_version}"
            ": run with the Python of the Lambda runtime, and data of its version"
        )
    soft = parse_soft_dotted(props.decode("utf-8-sig"))
    look = LookAlikeData(
        prototypes=prototypes, soft_dotted=frozenset(soft), small_capitals={}, dominated={}, misread=frozenset()
    )
    look = look.replaced(small_capitals=small_capitals(look))
    refused = misread(look)  # judged on every reading, before any is dropped
    look = look.replaced(dominated=dominated(look))
    lines = [
        "# Unicode look-alike data for lock values (ddbguard.store.confusables), written by make confusables.",
        "# Prototypes from Unicode Security Mechanisms (UTS #39) confusables.txt; Soft_Dotted from PropList.txt.",
        f"# Version: {header['Version']}",
        f"# Date: {header.get('Date', '')}",
        f"# SHA-256 of the source file: {hashlib.sha256(confusables).hexdigest()}",
        "# Copyright Unicode, Inc.; Unicode License v3 (terms of use: the Unicode web site).",
        "[prototypes]",
        *(f"{_hex(source)}\t{_hex(target)}" for source, target in prototypes.items()),
        "[soft-dotted]",
        *_ranges(soft),
        "[small-capitals]",
        *(f"{_hex(source)}\t{_hex(target)}" for source, target in sorted(look.small_capitals.items())),
        "[dominated]",
        *(f"{_hex(source)}\t{_hex(target)}" for source, target in sorted(look.dominated.items())),
        "[misread]",
        *_ranges(refused),
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit("usage: compact_confusables.py <confusables.txt> <PropList.txt or ppucd.txt>")
    TARGET.write_text(build(Path(sys.argv[1]).read_bytes(), Path(sys.argv[2]).read_bytes()), encoding="utf-8")
    print(f"wrote {TARGET.name}")


if __name__ == "__main__":
    main()
