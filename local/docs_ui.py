"""`GET /openapi.json` and a Swagger UI at `GET /docs` for the local server, without a token.

The document is generated from the code on first request (local.openapi, the same generator that
writes docs/openapi.json). The UI's assets come from the npm package `swagger-ui-dist` (pinned in
package-lock.json, installed by `make install`), served from node_modules: no CDN.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from ddbguard_api.http.problems import problem_document
from local.paths import ROOT

SWAGGER_UI_DIR = ROOT / "node_modules" / "swagger-ui-dist"
# Only these files are served: nothing user-controlled ever becomes a file path.
ASSETS = {
    "swagger-ui.css": "text/css; charset=utf-8",
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "favicon-32x32.png": "image/png",
}
DOCS_PATHS = {"/", "/openapi.json", "/docs", "/docs/"} | {f"/docs/{name}" for name in ASSETS}
# `GET /` has no route of its own: it sends a browser to the Swagger UI and tells curl where things are.
ROOT_POINTERS = {"docs": "/docs", "openapi": "/openapi.json", "health": "/health"}

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>ddbguard API</title>
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script>
    window.ui = SwaggerUIBundle({
      url: "/openapi.json",
      dom_id: "#swagger-ui",
      deepLinking: true,
      persistAuthorization: true,
      presets: [SwaggerUIBundle.presets.apis],
    });
  </script>
</body>
</html>
"""

_document: bytes | None = None
_document_lock = threading.Lock()


def openapi_json() -> bytes:
    global _document
    with _document_lock:
        if _document is None:
            from local.openapi import build_document, render

            _document = render(build_document()).encode()
        return _document


def _problem(status: int, code: str, detail: str) -> tuple[int, dict[str, Any], bytes]:
    body = problem_document(status, code, detail)
    return status, {"Content-Type": "application/problem+json"}, json.dumps(body).encode()


def serve(method: str, path: str) -> tuple[int, dict[str, Any], bytes] | None:
    """The answer for a docs path, or None when `path` is not one of ours."""
    if method not in ("GET", "HEAD") or path not in DOCS_PATHS:
        return None
    if path == "/":
        headers = {"Content-Type": "application/json", "Location": ROOT_POINTERS["docs"]}
        return 302, headers, json.dumps(ROOT_POINTERS).encode()
    if path == "/openapi.json":
        return 200, {"Content-Type": "application/json"}, openapi_json()
    if path in ("/docs", "/docs/"):
        return 200, {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache"}, PAGE.encode()
    name = path.removeprefix("/docs/")
    asset = SWAGGER_UI_DIR / name
    if not asset.is_file():
        return _problem(404, "not_found", "Swagger UI assets are missing: run `make install` (npm swagger-ui-dist).")
    return 200, {"Content-Type": ASSETS[name], "Cache-Control": "max-age=3600"}, asset.read_bytes()
