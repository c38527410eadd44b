"""OpenAPI links from each create operation to the operations on what it created, derived from the route table.

A route that answers 201 with a `location` (e.g. `/accounts/{accountId}`) created the resource at that path; every
route on that path, or under it, whose path parameters the created resource's fields fill, can follow it. Each
link fills those parameters from the response body, and `If-Match` from the response's `ETag` where the target
needs it. Clients generated from the document, and schemathesis's stateful phase, follow them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _link_name(operation: str) -> str:
    return "".join(part.capitalize() for part in operation.split("_"))


def add_links(document: dict[str, Any], routes: Iterable[Any]) -> None:
    """Put `links` into each create operation's 201 response of `document` (in place)."""
    routes = list(routes)
    for created in routes:
        if created.status != 201 or not created.location:
            continue
        fields = _PLACEHOLDER.findall(created.location)
        links = {}
        for target in routes:
            on_it = target.path == created.location or target.path.startswith(created.location + "/")
            if target is created or not on_it or not set(target.path_parameters) <= set(fields):
                continue
            parameters = {name: f"$response.body#/{name}" for name in target.path_parameters}
            if target.if_match:
                parameters["header.If-Match"] = "$response.header.ETag"
            links[_link_name(target.operation)] = {
                "operationId": target.operation,
                "parameters": parameters,
                "description": f"{target.method} {target.path} on what {created.operation} created.",
            }
        if links:
            response = document["paths"][created.path][created.method.lower()]["responses"]["201"]
            response["links"] = dict(sorted(links.items()))
