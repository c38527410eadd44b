"""A project: its `slug` unique case-insensitively, every write versioned."""

from ddbguard.domain.normalize import unique_form
from ddbguard.guards.entity import Entity
from ddbguard.guards.fields import matching_kind, text, unique

# 3 to 40 of a-z, 0-9 and '-' once normalised (NFKC, case-folded, trimmed): `Apollo-11` and `apollo-11` collide.
SLUG = matching_kind("slug", "[a-z0-9-]", 3, 40, form=unique_form)

PROJECT = Entity("project", fields={"slug": unique(SLUG, "apollo-11"), "name": text("Apollo 11")})
