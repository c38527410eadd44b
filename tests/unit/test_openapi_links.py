"""The OpenAPI document links each create operation to the operations on what it created."""

from __future__ import annotations

import json

import routes
from local.paths import ROOT

DOCUMENT = json.loads((ROOT / "docs" / "openapi.json").read_text())
OPERATIONS = {op["operationId"]: (path, op) for path, item in DOCUMENT["paths"].items() for op in item.values()}


def _links(operation: str) -> dict:
    _path, op = OPERATIONS[operation]
    return op["responses"]["201"].get("links", {})


def test_create_links_to_get_patch_and_delete_on_what_it_created_with_the_id_and_the_etag():
    complete = 0
    for created in routes.ROUTES:
        if created.status != 201 or not created.location:
            continue
        links = {link["operationId"]: link["parameters"] for link in _links(created.operation).values()}
        on_it = [route for route in routes.ROUTES if route.path == created.location and route is not created]
        for target in on_it:
            expected = {name: f"$response.body#/{name}" for name in target.path_parameters}
            if target.if_match:
                expected["header.If-Match"] = "$response.header.ETag"
            assert links[target.operation] == expected, (created.operation, target.operation)
        complete += {route.method for route in on_it} >= {"GET", "PATCH", "DELETE"}
    assert complete >= 2, "accounts and orders: create -> get, patch, delete"


def test_every_link_names_an_operation_whose_path_parameters_it_fills_from_a_field_the_response_has():
    count = 0
    for operation, (_path, op) in OPERATIONS.items():
        response = op["responses"].get("201", {})
        schema_ref = response.get("content", {}).get("application/json", {}).get("schema", {}).get("$ref", "")
        fields = DOCUMENT["components"]["schemas"][schema_ref.rsplit("/", 1)[-1]]["properties"] if schema_ref else {}
        for link in response.get("links", {}).values():
            _target_path, target = OPERATIONS[link["operationId"]]
            wanted = {p["name"] for p in target.get("parameters", []) if p["in"] == "path"}
            given = {name for name in link["parameters"] if not name.startswith("header.")}
            assert wanted == given, (operation, link)
            assert all(
                value.removeprefix("$response.body#/") in fields
                for value in (link["parameters"][name] for name in given)
            ), (operation, link)
            count += 1
    assert count >= 6
