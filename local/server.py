"""The local API: each HTTP request becomes an API Gateway REST proxy event for its route's handler.

Routes come from functions/routes/, the same table the CDK API is built from. The front end only
routes, authorizes and builds events: a thread per connection (64+ concurrent clients), and each function
runs in execution environments of its own, OS processes started on first use (`local.environments`), so
the handlers run as deployed. A handler that raises, or whose process dies, answers 502 and the server goes on.
`invoke` without environments runs the handler in this process (`local.in_process`: tests, the seeder).
"""

from __future__ import annotations

import json
import re
import sys
import threading
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import urlsplit

import routes
from ddbguard_api.http import cors
from ddbguard_api.http.problems import PROBLEM_JSON, problem_document
from local import docs_ui
from local.apigw_events import build_event, match_path
from local.authorizer import JWKS_PATH, authorize, serve_jwks
from local.environments import ProcessEnvironments
from local.lambda_context import LambdaContext
from local.log_lines import readable_prefix

MAX_READ_BYTES = 1024 * 1024  # API Gateway's own limit is 10 MB; handlers refuse past 64 KiB anyway
GATEWAY = "(api gateway)"  # who answered, in a log line, when no function did
# Paths the server serves itself, named in its log lines as they are (no id in them).
_OWN_PATHS = frozenset({*docs_ui.DOCS_PATHS, JWKS_PATH})
# Whether this request thread's request reached a function (which logs its own line).
_answered = threading.local()


class Environments(Protocol):
    """Where a function's invocations run: `local.environments` (processes) or `local.in_process`."""

    def invoke(self, route: Any, event: dict[str, Any], context: LambdaContext) -> dict[str, Any]: ...

    def close(self) -> None: ...


_in_process: Environments | None = None
_in_process_lock = threading.Lock()


def in_process() -> Environments:
    """The shared in-process environments (tests, the seeder); created on first use, after `configure`."""
    global _in_process
    with _in_process_lock:
        if _in_process is None:
            from local.in_process import InProcessEnvironments

            _in_process = InProcessEnvironments()
        return _in_process


def _problem(
    status: int, code: str, detail: str, extra_headers: dict[str, str] | None = None
) -> tuple[int, dict, bytes]:
    body = problem_document(status, code, detail)
    return status, {"Content-Type": PROBLEM_JSON, **(extra_headers or {})}, json.dumps(body).encode()


def find_route(method: str, path: str) -> tuple[Any, dict[str, str] | None, list[str]]:
    """(route, path parameters, the methods the matched path has); ([] when no path matches)."""

    found, found_parameters, methods = None, None, []
    for route in routes.ROUTES:
        parameters = match_path(route.path, path)
        if parameters is None:
            continue
        methods.append(route.method)
        if route.method == method and found is None:
            found, found_parameters = route, parameters
    return found, found_parameters, methods


def allow_header(methods: list[str]) -> str:
    """The `Allow` value of a path: its routes' methods, plus OPTIONS when preflight is answered."""
    return ", ".join([*methods, "OPTIONS"] if cors.allowed_origins() else methods)


def _origin(headers: list[tuple[str, str]]) -> str | None:
    return next((v for k, v in headers if k.lower() == "origin"), None)


def _cors_headers(origin: str | None) -> dict[str, str]:
    """What the stack's gateway responses add to API Gateway's own errors, when CORS is on."""
    origins = cors.allowed_origins()
    if not origins or origin not in origins:
        return {}
    return {"Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": ",".join(cors.EXPOSED_HEADERS)}


def _preflight(origin: str | None, methods: list[str]) -> tuple[int, dict[str, Any], bytes]:
    """API Gateway's CORS preflight mock (CDK add_cors_preflight): 204, the allowed origin echoed,
    the first allowed origin otherwise (which the browser then refuses)."""
    origins = cors.allowed_origins()
    headers = {
        "Access-Control-Allow-Origin": origin if origin in origins else origins[0],
        "Access-Control-Allow-Methods": ",".join([*methods, "OPTIONS"]),
        "Access-Control-Allow-Headers": ",".join(cors.ALLOWED_HEADERS),
        "Access-Control-Expose-Headers": ",".join(cors.EXPOSED_HEADERS),
        "Access-Control-Max-Age": str(cors.MAX_AGE_S),
        "Vary": "Origin",
    }
    return 204, headers, b""


def invoke(
    method: str,
    raw_path: str,
    headers: list[tuple[str, str]],
    body: bytes,
    environments: Environments | None = None,
) -> tuple[int, dict[str, Any], bytes]:
    """API Gateway's part: route, authorize, build the proxy event, invoke the function, map its answer."""
    path = urlsplit(raw_path).path
    route, parameters, methods = find_route(method, path)
    if route is None:
        if not methods:
            docs = docs_ui.serve(method, path) or serve_jwks(method, path)
            if docs is not None:
                return docs
            return _problem(404, "not_found", f"No route for {method} {path}.", _cors_headers(_origin(headers)))
        if method == "OPTIONS" and cors.allowed_origins():
            return _preflight(_origin(headers), methods)
        # Deployed, each resource's ANY method (a mock) answers the same (infra/api.py).
        extra = {"Allow": allow_header(methods), **_cors_headers(_origin(headers))}
        detail = f"{method} is not allowed on {path}."
        if method == "OPTIONS":  # a browser's preflight, with CORS off: say how to turn it on
            detail += (
                f" CORS is off: list the browser app's origin in {cors.ORIGINS_ENV} (make run {cors.ORIGINS_ENV}=...)."
            )
        return _problem(405, "method_not_allowed", detail, extra)
    claims = None
    if route.auth:
        authorization = next((v for k, v in headers if k.lower() == "authorization"), None)
        claims = authorize(authorization)
        if claims is None:  # what API Gateway's Cognito authorizer answers, before any Lambda runs
            return _problem(
                401,
                "unauthorized",
                "Send Authorization: Bearer <token> (make token SUB=...).",
                _cors_headers(_origin(headers)),
            )
    event = build_event(
        method=method,
        resource=route.path,
        raw_path=raw_path,
        headers=headers,
        body=body,
        path_parameters=parameters,
        claims=claims,
    )
    context = LambdaContext(function_name=f"ddbguard-{route.operation}")
    _answered.by_function = True  # the function logs the request's line itself
    try:
        response = (environments or in_process()).invoke(route, event, context)
    except Exception:  # a crashed Lambda: API Gateway answers 502, and so do we
        traceback.print_exc()
        return _problem(502, "bad_gateway", "The handler failed.")
    out_headers: dict[str, Any] = dict(response.get("headers") or {})
    for name, values in (response.get("multiValueHeaders") or {}).items():
        out_headers[name] = values
    payload = response.get("body") or ""
    # "replace": a body is UTF-8 whatever a handler put in it (handlers already write through `json_body`).
    data = (
        payload.encode(errors="replace")
        if not response.get("isBase64Encoded")
        else __import__("base64").b64decode(payload)
    )
    return int(response.get("statusCode", 502)), out_headers, data


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ddbguard-local"
    # Headers and body leave in two writes: with Nagle's algorithm on, the body waits for the client's
    # delayed ACK (about 40 ms per keep-alive request).
    disable_nagle_algorithm = True

    def _serve(self) -> None:
        _answered.by_function = False
        length_header = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding"):
            status, headers, data = _problem(411, "length_required", "Send a Content-Length.")
            self.close_connection = True
        else:
            try:
                length = int(length_header or 0)
            except ValueError:
                length = -1
            if length < 0 or length > MAX_READ_BYTES:
                status, headers, data = _problem(413, "payload_too_large", "The body is too large.")
                self.close_connection = True
            else:
                body = self.rfile.read(length) if length else b""
                environments = self.server.environments  # type: ignore[attr-defined]
                status, headers, data = invoke(self.command, self.path, list(self.headers.items()), body, environments)
        self.send_response(status)
        for name, value in headers.items():
            for one in value if isinstance(value, list) else [value]:
                if name.lower() not in ("content-length", "connection"):
                    self.send_header(name, str(one))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_DELETE = do_PUT = do_HEAD = do_OPTIONS = _serve

    def __getattr__(self, name: str) -> Any:
        # Any other method (TRACE, PROPFIND, ...) is routed too, so a known path answers 405 with Allow.
        if name.startswith("do_"):
            return self._serve
        raise AttributeError(name)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The server's own refusals (431 headers too large, 414 request line too long, 400 unreadable request,
        505 version) as problem+json, as every other answer is; the detail never echoes what the client sent."""
        phrase = HTTPStatus(code).phrase
        status, headers, data = _problem(code, re.sub(r"[^a-z]+", "_", phrase.lower()).strip("_"), f"{phrase}.")
        self.close_connection = True
        # http.server takes an unreadable request line for HTTP/0.9 and would send the body without a status line.
        if not self.request_version.startswith("HTTP/1."):
            self.request_version = "HTTP/1.1"
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Connection", "close")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if getattr(self, "command", "") != "HEAD":
            self.wfile.write(data)

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        """One readable line for a request API Gateway answers itself (401, 404, 405, the docs); a function's
        request has its own line, from the function (ddbguard_api.http.request_log)."""
        if getattr(_answered, "by_function", False):
            return
        # The route template, never the request target: a query string may carry a token or an address.
        method = getattr(self, "command", "") or "-"
        path = urlsplit(getattr(self, "path", "") or "/").path
        route = find_route(method, path)[0] if method != "-" else None
        where = route.path if route is not None else (path if path in _OWN_PATHS else "(no route)")
        self.log_message("%s %s  status=%s", method, where, code)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - BaseHTTPRequestHandler's signature
        if self.server.quiet:  # type: ignore[attr-defined]
            return
        sys.stderr.write(f"{readable_prefix(GATEWAY, 'INFO')} {format % args}\n")


class LocalApiServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256
    allow_reuse_address = True

    def __init__(self, host: str, port: int, quiet: bool = False, environments: Environments | None = None):
        super().__init__((host, port), _Handler)
        self.quiet = quiet
        # Each function in processes of its own, started on first use (local.environments).
        self.environments = environments or ProcessEnvironments(quiet=quiet)

    def server_close(self) -> None:
        super().server_close()
        self.environments.close()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"
