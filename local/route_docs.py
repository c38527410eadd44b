"""How each route is described in the API's OpenAPI document: the words, kept out of the route table.

The route table (functions/routes.py) ships in every Lambda function and holds what the code runs on; the wording
readers see is needed only where the document is built (local/openapi.py, `make openapi`), so it lives here, keyed
by operation. A route served by the generic operations gets its words derived from its entity and method, as its
table access is; `ROUTE_DOCS` adds or overrides. A hand-written handler's OpenAPI summary is its module's
docstring, so its entry here names only what its success response is. tests/unit/test_route_docs.py fails when a
route has no words or an entry names no route.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from route_facts import Route


@dataclass(frozen=True)
class RouteDocs:
    reply: str = ""  # what the success response is, in a few words
    summary: str = ""  # what a generic route does; a hand-written handler's docstring says it instead


ROUTE_DOCS: dict[str, RouteDocs] = {
    "check_health": RouteDocs(reply="The service answers."),
    "create_account": RouteDocs(
        summary="Create an account whose email and username are unique (locks in the same transaction)"
    ),
    "list_accounts": RouteDocs(reply="The caller's accounts, newest first, one page."),
    "get_account": RouteDocs(summary="The owner's account (admins may read any), with its ETag"),
    "update_account": RouteDocs(summary="Change email, username, displayName or closing at the expected version"),
    "delete_account": RouteDocs(
        reply="Deleted with its locks (and its empty balance item); the id is never given again.",
        summary="The account, its locks and its empty balance item, in one transaction",
    ),
    "open_ledger": RouteDocs(reply="The new, empty balance."),
    "get_statement": RouteDocs(reply="The balance and one page of entries, newest first."),
    "deposit": RouteDocs(reply="The deposit entry."),
    "withdraw": RouteDocs(reply="The withdrawal entry."),
    "place_hold": RouteDocs(reply="The hold entry; `holdId` names the hold."),
    "capture_hold": RouteDocs(reply="The capture entry: the held money left the account."),
    "release_hold": RouteDocs(reply="The release entry: the held money is available again."),
    "create_transfer": RouteDocs(reply="The caller's transfer_out entry."),
    "create_order": RouteDocs(reply="The new PENDING order at version 0."),
    "get_order": RouteDocs(summary="The caller's order with its ETag (admins too: only their own, docs/api.md)"),
    "update_order_status": RouteDocs(
        reply="The order after the move.", summary="Move the order's status along the transition table"
    ),
    "delete_order": RouteDocs(
        summary="Delete an order that never moved money (PENDING, CANCELLED) at the expected version; its id is never"
        " given again"
    ),
    "pay_order": RouteDocs(reply="The PAID order (a replay with the same key answers the first result)."),
    "refund_order": RouteDocs(reply="The REFUNDED order (a replay with the same key answers the first result)."),
}


def _generic_docs(route: Route) -> RouteDocs:
    """The words of a generic route, from its entity and method (as generic_routes.entity_route derives its facts)."""
    entity = route.entity
    if entity is None:
        raise ValueError(f"{route.key} is generic but names no entity")
    kind, locks = entity.kind, bool(entity.lock_patterns)
    if route.method == "POST":
        unique = f", its {', '.join(u.field for u in entity.unique)} unique" if entity.unique else ""
        return RouteDocs(reply=f"The new {kind}.", summary=f"Create a {kind}{unique}")
    if route.method == "GET":
        return RouteDocs(reply=f"The {kind}.", summary=f"The caller's {kind}, with its ETag")
    if route.method == "PATCH":
        return RouteDocs(reply=f"The {kind} after the change.", summary=f"Change the {kind} at the If-Match version")
    if route.method == "DELETE":
        return RouteDocs(
            reply="Deleted, with its locks." if locks else "Deleted.",
            summary=f"Delete the {kind} at the If-Match version" + (", with its locks" if locks else ""),
        )
    raise ValueError(f"no generic {route.method} operation")


def docs_of(route: Route) -> RouteDocs:
    """The route's words: derived for a generic route, then what `ROUTE_DOCS` declares for its operation."""
    derived = _generic_docs(route) if route.is_generic else RouteDocs()
    declared = ROUTE_DOCS.get(route.operation)
    if declared is None:
        return derived
    return replace(derived, **{name: value for name, value in vars(declared).items() if value})
