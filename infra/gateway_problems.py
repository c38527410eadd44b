"""The problem+json bodies of the errors API Gateway answers by itself (no token, a throttled stage, ...)."""

from __future__ import annotations

import json

from ddbguard_api.http.problems import problem_document


def gateway_problem_body(status: int, code: str, detail: str) -> str:
    """The body API Gateway answers with, rendered by the handlers' own renderer so the two cannot differ."""
    return json.dumps(problem_document(status, code, detail))
