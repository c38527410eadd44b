"""The team: owned by its creator (ids per owner), versioned, its `slug` unique case-insensitively."""

from ddbguard.domain.normalize import unique_form
from ddbguard.guards.entity import OWNER_SCOPED_IDS, Entity
from ddbguard.guards.fields import integer, matching_kind, text, unique

# 3 to 40 of a-z, 0-9 and '-' once normalised (NFKC, case-folded, trimmed): `Core-Team` and `core-team` collide.
SLUG = matching_kind("slug", "[a-z0-9-]", 3, 40, form=unique_form)

# TEAM#<owner tag>#<teamId> / TEAM, lock UNIQ#SLUG#<slug>, 404 team_not_found: the kind's defaults.
TEAM = Entity(
    "team",
    ids=OWNER_SCOPED_IDS,
    fields={
        "slug": unique(SLUG, "core-team"),
        "name": text("Core team"),
        "seats": integer(5, minimum=1, maximum=500, description="How many people the team may hold."),
    },
)
