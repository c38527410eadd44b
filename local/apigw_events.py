"""API Gateway REST (v1) proxy events, as API Gateway builds them, for the local server and events/."""

from __future__ import annotations

import base64
import re
import time
import uuid
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def match_path(template: str, path: str) -> dict[str, str] | None:
    """Path parameters if `path` fits the route template (one non-empty segment per placeholder)."""
    wanted, given = template.split("/"), path.split("/")
    if len(wanted) != len(given):
        return None
    parameters = {}
    for pattern, segment in zip(wanted, given, strict=True):
        placeholder = _PLACEHOLDER.fullmatch(pattern)
        if placeholder and segment:
            parameters[placeholder.group(1)] = unquote(segment)
        elif pattern != segment:
            return None
    return parameters


def build_event(
    *,
    method: str,
    resource: str,
    raw_path: str,
    headers: list[tuple[str, str]],
    body: bytes | None,
    path_parameters: dict[str, str] | None,
    claims: dict[str, str] | None,
    stage: str = "local",
    source_ip: str = "127.0.0.1",
) -> dict[str, Any]:
    split = urlsplit(raw_path)
    query_multi = parse_qs(split.query, keep_blank_values=True) or None
    single_headers: dict[str, str] = {}
    multi_headers: dict[str, list[str]] = {}
    for name, value in headers:
        single_headers[name] = value  # API Gateway keeps the last value in `headers`
        multi_headers.setdefault(name, []).append(value)
    is_binary = False
    text_body: str | None = None
    if body:
        try:
            text_body = body.decode("utf-8")
        except UnicodeDecodeError:
            text_body, is_binary = base64.b64encode(body).decode(), True
    now = time.time()
    request_context: dict[str, Any] = {
        "resourcePath": resource,
        "httpMethod": method,
        "path": f"/{stage}{split.path}",
        "accountId": "000000000000",
        "apiId": "local",
        "stage": stage,
        "protocol": "HTTP/1.1",
        "requestId": str(uuid.uuid4()),
        "requestTime": time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(now)),
        "requestTimeEpoch": int(now * 1000),
        "domainName": "127.0.0.1",
        "identity": {"sourceIp": source_ip, "userAgent": single_headers.get("User-Agent", "")},
    }
    if claims is not None:
        request_context["authorizer"] = {"claims": claims}
    return {
        "resource": resource,
        "path": split.path,
        "httpMethod": method,
        "headers": single_headers or None,
        "multiValueHeaders": multi_headers or None,
        "queryStringParameters": {k: v[-1] for k, v in query_multi.items()} if query_multi else None,
        "multiValueQueryStringParameters": query_multi,
        "pathParameters": path_parameters or None,
        "stageVariables": None,
        "requestContext": request_context,
        "body": text_body,
        "isBase64Encoded": is_binary,
    }
