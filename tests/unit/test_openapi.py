"""docs/openapi.json is generated from the code, never drifts, and is valid OpenAPI 3.1."""

from __future__ import annotations

import json
import re

import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.validation import OpenAPIV31SpecValidator

import routes
from local.openapi import OPENAPI_PATH, build_document, render
from local.paths import ROOT


@pytest.fixture(scope="module")
def document():
    return build_document()


def test_committed_file_is_what_the_code_generates(document):
    assert OPENAPI_PATH.read_text() == render(document), "docs/openapi.json drifted: run `make openapi`"


def test_validates_as_openapi_3_1(document):
    assert document["openapi"] == "3.1.0"
    validate(document, cls=OpenAPIV31SpecValidator)


def test_every_route_is_described_and_nothing_else(document):
    described = {(method.upper(), path) for path, item in document["paths"].items() for method in item}
    assert described == {(r.method, r.path) for r in routes.ROUTES}


@pytest.mark.parametrize("route", routes.ROUTES, ids=lambda r: r.operation)
def test_route_parameters_headers_and_security(document, route):
    operation = document["paths"][route.path][route.method.lower()]
    parameters = {(p["in"], p["name"]): p for p in operation.get("parameters", [])}
    assert {name for kind, name in parameters if kind == "path"} == set(route.path_parameters)
    key = parameters.get(("header", "Idempotency-Key"))
    assert (key is not None) == (route.idempotency != "none")
    if key is not None:
        assert key["required"] == (route.idempotency == "required")
    assert (("header", "If-Match") in parameters) == route.if_match
    if route.if_match:
        assert {"412", "428"} <= set(operation["responses"])
    if route.auth:
        assert "security" not in operation  # the document-wide Cognito bearer applies
        assert "401" in operation["responses"]
    else:
        assert operation["security"] == []
    for status, response in operation["responses"].items():
        if int(status) >= 400:
            schema = response["content"]["application/problem+json"]["schema"]
            assert schema["$ref"] == "#/components/schemas/Problem"
            assert schema["properties"]["code"]["enum"], f"{route.key} {status} lists no codes"


def test_security_scheme_is_bearer_jwt(document):
    assert document["components"]["securitySchemes"]["cognito"] == {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": document["components"]["securitySchemes"]["cognito"]["description"],
    }
    assert document["security"] == [{"cognito": []}]


def test_versioned_and_created_resources_document_their_headers(document):
    created = document["paths"]["/accounts"]["post"]["responses"]["201"]["headers"]
    assert {"ETag", "Location"} <= set(created)
    busy = document["paths"]["/orders/{orderId}/pay"]["post"]["responses"]["503"]["headers"]
    assert "Retry-After" in busy


def test_every_code_is_in_the_error_catalogue_of_the_guide(document):
    codes = {
        code
        for item in document["paths"].values()
        for operation in item.values()
        for status, response in operation["responses"].items()
        if int(status) >= 400
        for code in response["content"]["application/problem+json"]["schema"]["properties"]["code"]["enum"]
    }
    guide = (ROOT / "docs" / "api.md").read_text()
    catalogue = guide.split("## Error catalogue", 1)[1]
    listed = set(re.findall(r"^\| `([a-z_]+)` \|", catalogue, flags=re.MULTILINE))
    # One generic row covers every declared entity's 404, so a new resource needs no edit of the guide.
    if "| `<kind>_not_found` | 404 |" in catalogue:
        listed |= {entity.not_found for entity in routes.ENTITIES}
    assert codes <= listed, f"docs/api.md lacks {sorted(codes - listed)}"


def test_no_link_in_readme_or_docs_leaves_the_repository():
    files = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for path in files:
        for target in re.findall(r"\]\(([^)#\s]+)", path.read_text()):
            assert not re.match(r"[a-z]+:", target), f"{path.name} links outside the repository: {target}"
            resolved = (path.parent / target).resolve()
            assert resolved.is_relative_to(ROOT), f"{path.name} links outside the repository: {target}"
            assert resolved.exists(), f"{path.name} links a missing file: {target}"


def test_document_is_json_serialisable_deterministically(document):
    assert json.loads(render(document)) == document
