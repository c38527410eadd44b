"""The API Gateway REST proxy event and response, as the fields the edge reads and writes. Types only: importing
this module runs nothing but class bodies (`typing` is loaded by the time anything imports it)."""

from __future__ import annotations

from typing import TypedDict

__all__ = ["Authorizer", "ProxyEvent", "ProxyResponse", "RequestContext"]


class Authorizer(TypedDict, total=False):
    # A Cognito authorizer's claims, flattened to strings by API Gateway (groups may arrive as a list locally).
    claims: dict[str, object]


class RequestContext(TypedDict, total=False):
    authorizer: Authorizer | None


class ProxyEvent(TypedDict, total=False):
    """What the edge reads of an event: any field may be absent (a test's or a console's hand-made event)."""

    httpMethod: str
    resource: str
    path: str
    pathParameters: dict[str, str] | None
    headers: dict[str, str | None] | None
    multiValueHeaders: dict[str, list[str]] | None
    queryStringParameters: dict[str, str] | None
    multiValueQueryStringParameters: dict[str, list[str]] | None
    body: str | None
    isBase64Encoded: bool
    requestContext: RequestContext


class ProxyResponse(TypedDict):
    """What the edge answers: every field, every time (headers as `multiValueHeaders`, as API Gateway reads them)."""

    statusCode: int
    body: str | None
    isBase64Encoded: bool
    multiValueHeaders: dict[str, list[str]]
