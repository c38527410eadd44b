"""Call the real handlers with real API Gateway proxy events, exactly as the local server does."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from local.server import Environments, invoke
from local.tokens import make_token


# What the API answered, as a client sees it (the handlers' own reply type is ddbguard_api.http.replies.Reply).
@dataclass
class HttpAnswer:
    status: int
    headers: dict[str, Any]
    raw: bytes
    _lower: dict[str, Any] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._lower = {k.lower(): v for k, v in self.headers.items()}

    def header(self, name: str) -> str | None:
        value = self._lower.get(name.lower())
        return value[-1] if isinstance(value, list) else value

    @property
    def json(self) -> Any:
        return json.loads(self.raw) if self.raw else None

    @property
    def code(self) -> str | None:
        body = self.json
        return body.get("code") if isinstance(body, dict) else None


class ApiClient:
    """`api.post("/accounts", {...}, sub="alice", headers={...})` -> HttpAnswer.

    Handlers run in this process (`local.in_process`): by default each request on an environment of its
    own; pass `InProcessEnvironments(reuse=True)` for warm environments that serve one request after another.
    """

    def __init__(self, environments: Environments | None = None):
        self.environments = environments

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        sub: str | None = "alice",
        groups: list[str] | None = None,
        headers: dict[str, str] | list[tuple[str, str]] | None = None,
        raw_body: bytes | None = None,
        idempotency_key: str | None = None,
        if_match: str | int | None = None,
    ) -> HttpAnswer:
        header_list: list[tuple[str, str]] = list(headers.items()) if isinstance(headers, dict) else list(headers or [])
        names = {k.lower() for k, _ in header_list}
        if sub is not None and "authorization" not in names:
            header_list.append(("Authorization", f"Bearer {make_token(sub, groups)}"))
        data = raw_body
        if data is None and body is not None:
            data = json.dumps(body).encode()
        if data and "content-type" not in names:
            header_list.append(("Content-Type", "application/json"))
        if idempotency_key is not None:
            header_list.append(("Idempotency-Key", idempotency_key))
        if if_match is not None:
            header_list.append(("If-Match", f'"{if_match}"' if isinstance(if_match, int) else if_match))
        status, out_headers, out_body = invoke(method, path, header_list, data or b"", self.environments)
        return HttpAnswer(status, out_headers, out_body)

    def get(self, path: str, **kwargs: Any) -> HttpAnswer:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, body: Any = None, **kwargs: Any) -> HttpAnswer:
        return self.request("POST", path, body, **kwargs)

    def patch(self, path: str, body: Any = None, **kwargs: Any) -> HttpAnswer:
        return self.request("PATCH", path, body, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> HttpAnswer:
        return self.request("DELETE", path, **kwargs)
