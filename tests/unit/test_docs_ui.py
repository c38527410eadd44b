"""The local server's own pages: `GET /` points to the Swagger UI, and their problems use the API's `type` URIs."""

from __future__ import annotations

import json

from ddbguard_api.http.problems import problem_document
from local import docs_ui


def test_root_points_to_the_docs() -> None:
    answer = docs_ui.serve("GET", "/")
    assert answer is not None
    status, headers, body = answer
    assert (status, headers["Location"]) == (302, "/docs")
    assert json.loads(body) == {"docs": "/docs", "openapi": "/openapi.json", "health": "/health"}
    assert docs_ui.serve("POST", "/") is None  # any other method falls through to the route table (405/404)


def test_a_missing_asset_is_a_problem_like_every_other() -> None:
    status, headers, body = docs_ui._problem(404, "not_found", "gone")
    assert status == 404
    assert headers["Content-Type"] == "application/problem+json"
    assert json.loads(body) == problem_document(404, "not_found", "gone")
    assert json.loads(body)["type"] == "/problems/not-found"
