"""Route groups: each route's function (role, policies, log group, SnapStart alias), its API method and invoke
permission, and its alarms live in a nested stack of its group, so the parent stack stays the same size however
many routes are added.

A group is the routes of one tag (functions/routes/ `Route.tag`: the handler's package, or a generic route's
collection), in route-table order, split into chunks of at most `ROUTES_PER_STACK`. A route therefore stays in its
stack when routes of other tags come or go, and a tag's new route joins the tag's last chunk or starts the next one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from aws_cdk import NestedStack
from constructs import Construct

from infra.api import Api
from infra.functions import Functions, RouteFunction
from infra.monitoring import Monitoring
from routes import Route

# A route costs at most 15 resources in its group's stack (function, role, 2 policies, log group, SnapStart version
# and alias, method, permission, 6 alarms) and about 22 KB of template (docs/infra.md, "Room to grow"): 20 routes
# stay well under 500 resources and 1 MB, and a group takes one parameter per distinct path, far under 200.
ROUTES_PER_STACK = 20


@dataclass(frozen=True)
class RouteGroup:
    name: str  # the nested stack's construct id: `Routes<Tag>`, then `Routes<Tag>2`, ... for a tag's later chunks
    routes: tuple[Route, ...]


def route_groups(routes: Sequence[Route], per_stack: int = ROUTES_PER_STACK) -> list[RouteGroup]:
    """The routes by tag (in order of first appearance), each tag in chunks of at most `per_stack`."""
    by_tag: dict[str, list[Route]] = {}
    for route in routes:
        by_tag.setdefault(route.tag, []).append(route)
    groups = []
    for tag, tagged in by_tag.items():
        base = "Routes" + "".join(part.capitalize() for part in tag.replace("-", "_").split("_"))
        for number, start in enumerate(range(0, len(tagged), per_stack), start=1):
            name = base if number == 1 else f"{base}{number}"
            groups.append(RouteGroup(name=name, routes=tuple(tagged[start : start + per_stack])))
    return groups


class RouteStack(NestedStack):
    """One route group: its functions, their API methods and permissions, and their alarms."""

    def __init__(
        self,
        scope: Construct,
        group: RouteGroup,
        *,
        functions: Functions,
        api: Api,
        monitoring: Monitoring,
    ) -> None:
        # A stack description holds at most 1,024 bytes: the group's tag and size, not its routes.
        description = f"ddbguard route group {group.name}: {len(group.routes)} routes tagged {group.routes[0].tag}"
        super().__init__(scope, group.name, description=description)
        self.routes: list[RouteFunction] = [functions.route_function(self, route) for route in group.routes]
        self.methods = api.add_routes(self, self.routes)
        monitoring.monitor_routes(self, [(item.route, item.function) for item in self.routes])
