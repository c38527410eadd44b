"""docs/reference.md renders exactly the library's public modules, and `make docs` builds it strict.

The page is one `::: module` block per public module (mkdocstrings renders each from the code, only what `__all__`
names); here it is held to the public modules `tests/unit/test_public_imports.py` derives from the packages'
`__all__`, so a new public module fails until the reference shows it, and an internal one cannot be shown. The site
itself is built in CI (`make docs` in `.ci/run`), not in this timed suite.
"""

from __future__ import annotations

import re

import yaml

from local.paths import ROOT
from tests.unit.test_public_imports import is_product_module, layer_modules, private_module_part

BLOCK = re.compile(r"^::: (\S+)$", re.MULTILINE)


def public_modules() -> list[str]:
    return [name for name, _ in layer_modules() if private_module_part(name) is None and not is_product_module(name)]


def test_the_reference_shows_every_public_module_and_nothing_else():
    shown = BLOCK.findall((ROOT / "docs" / "reference.md").read_text(encoding="utf-8"))
    assert len(shown) == len(set(shown))
    assert sorted(shown) == sorted(public_modules())


def test_the_site_is_built_strict_with_both_guides_side_by_side():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["strict"] is True
    pages = [next(iter(entry.values())) for entry in config["nav"]]
    guides = pages.index("your-service.md"), pages.index("extending.md")
    assert guides[1] == guides[0] + 1, "the two guides sit next to each other"
    assert "reference.md" in pages
    assert config["site_dir"].startswith(".local/"), "the built site lives where git ignores it"
