"""The Unicode properties the service refuses by are read from Unicode's own data, not from examples."""

from __future__ import annotations

import re
import sys
import unicodedata

from ddbguard.domain.normalize import email_form, email_problem
from ddbguard.limits import BLANK_SYMBOLS, DEFAULT_IGNORABLE_CLASS
from ddbguard.store import confusables

_SHOWS_NOTHING = re.compile(f"[{DEFAULT_IGNORABLE_CLASS}{BLANK_SYMBOLS}]")


def _blank_by_name() -> list[str]:
    """Letters and marks Unicode names a FILLER (punctuation gap fillers draw a sign), and PATTERN BLANKs."""
    found = []
    for code in range(sys.maxunicode + 1):
        character = chr(code)
        name, kind = unicodedata.name(character, ""), unicodedata.category(character)[0]
        if (name.endswith("FILLER") and kind in "LM") or name.endswith("PATTERN BLANK"):
            found.append(character)
    return found


def test_every_filler_and_blank_pattern_unicode_names_shows_nothing_here():
    """Blank-looking characters, by their Unicode names: every FILLER letter or mark and every PATTERN BLANK is
    default-ignorable or one of BLANK_SYMBOLS, so it is refused in a unique value and counts as nothing in a display
    name."""
    blank = _blank_by_name()
    assert len(blank) >= 6
    assert [f"U+{ord(ch):04X}" for ch in blank if not _SHOWS_NOTHING.match(ch)] == []


def test_private_use_noncharacters_unassigned_and_blank_characters_are_refused_where_they_stand():
    samples = {
        "\ue000": "private-use",
        "\U000f0000": "private-use",
        "\ufdd0": "noncharacters",
        "\U0001fffe": "noncharacters",
        "\u0378": "does not define",
        "\U0001fbfa": "does not define",
        "\u2800": "show nothing",
        "\U00016fe4": "show nothing",
    }
    for character, reason in samples.items():
        for spelling in (f"kate{character}@example.com", f"{character}kate@example.com", f"kate@ex{character}.com"):
            problem = email_problem(email_form(spelling))
            assert problem is not None and reason in problem.message, (spelling, problem)


def test_the_soft_dotted_letters_are_unicodes():
    """i, j and the Cyrillic and Latin letters whose dot a dot above replaces (PropList.txt, Soft_Dotted)."""
    soft = confusables.data().soft_dotted
    assert {"i", "j", "\u0456", "\u0458", "\u012f", "\u0268", "\u1e2d"} <= soft
    assert "l" not in soft and "\u0131" not in soft
    assert len(soft) > 30
