"""Which entities a team's lock audit checks: those its own modules declare, named by module.

A team's stack (`ddbguard_cdk.GuardedTable`) puts the module names into the audit worker's environment
(`DDBGUARD_ENTITY_MODULES`, comma-separated); the worker imports them from its code and audits exactly the entities
they hold, and the stack grants it exactly their items and locks, from the same names.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from ddbguard.guards.entity import Entity

__all__ = ["ENTITY_MODULES_VARIABLE", "entities_in", "module_names"]

ENTITY_MODULES_VARIABLE = "DDBGUARD_ENTITY_MODULES"


def module_names(variable: str) -> tuple[str, ...]:
    """`a.b, c` -> (`a.b`, `c`)."""
    return tuple(filter(None, (part.strip() for part in variable.split(","))))


def entities_in(modules: Sequence[str]) -> tuple[Entity, ...]:
    """The entities the named modules hold at their top level, in order, each once."""
    found: dict[str, Entity] = {}
    for name in modules:
        for value in vars(importlib.import_module(name)).values():
            if isinstance(value, Entity):
                found.setdefault(value.kind, value)
    if modules and not found:
        raise ValueError(f"the modules {list(modules)} declare no entity at their top level")
    return tuple(found.values())
