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


def test_create_links_to_get_patch_and_delete_with_the_id_and_the_etag():
    for create, get, patch, delete in (
        ("create_account", "get_account", "update_account", "delete_account"),
        ("create_order", "get_order", "update_order_status", "delete_order"),
    ):
        links = {link["operationId"]: link["parameters"] for link in _links(create).values()}
        path_parameter = routes.by_operation(get).path_parameters[0]
        from_body = f"$response.body#/{path_parameter}"
        assert links[get] == {path_parameter: from_body}
        for guarded in (patch, delete):
            assert links[guarded] == {path_parameter: from_body, "header.If-Match": "$response.header.ETag"}


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
