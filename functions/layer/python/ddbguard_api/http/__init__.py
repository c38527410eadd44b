"""The HTTP part of the edge: an API Gateway proxy event in, a proxy response out.

`endpoint` is the whole request path; `request` parses an event into a typed `Request`, `replies` and `problems`
write the answer, `route` is what one route is. Nothing here imports pydantic.

Internal (no API): `bodies`, `request_log`.
"""

__all__ = [
    "caller",
    "cors",
    "endpoint",
    "entity_endpoints",
    "headers",
    "idempotency",
    "json_documents",
    "problems",
    "proxy_events",
    "replies",
    "request",
    "route",
]
