"""Property: nothing a client sends gets a 5xx. Arbitrary bodies, headers and path values, every route."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import routes
from local.api_client import ApiClient

_text = st.text(max_size=40)
_scalars = st.none() | st.booleans() | st.integers(min_value=-(10**40), max_value=10**40) | st.floats() | _text
_json = st.recursive(
    _scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4), max_leaves=12
)
_field_names = st.sampled_from(
    [
        "email",
        "username",
        "displayName",
        "amountCents",
        "fromAccountId",
        "toAccountId",
        "accountId",
        "items",
        "orderId",
        "status",
        "sku",
        "quantity",
        "unitPriceCents",
    ]
)
_bodies = st.one_of(
    _json,
    st.dictionaries(_field_names, _json, max_size=5),
    st.binary(max_size=200).map(lambda b: b),
)
_path_values = st.one_of(
    st.uuids().map(str), st.text(min_size=1, max_size=80).filter(lambda s: "/" not in s and "?" not in s)
)
_header_values = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=60)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    route=st.sampled_from([r for r in routes.ROUTES if r.auth]),
    body=_bodies,
    path_value=_path_values,
    if_match=st.none() | _header_values,
    key=st.none() | _header_values,
    content_type=st.sampled_from(["application/json", "text/plain", "application/merge-patch+json", ""]),
)
def test_no_request_gets_a_5xx(dynamodb_local, route, body, path_value, if_match, key, content_type):
    api = ApiClient()
    path = route.path
    for name in route.path_parameters:
        path = path.replace("{" + name + "}", path_value.replace("%", "%25").replace("#", "%23"))
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"Content-Type": content_type} if content_type else {}
    if if_match is not None:
        headers["If-Match"] = if_match
    if key is not None:
        headers["Idempotency-Key"] = key
    reply = api.request(route.method, path, raw_body=raw, headers=headers, sub="fuzzer")
    assert reply.status < 500, (route.key, reply.status, reply.raw[:300])
    if reply.status >= 400:
        assert reply.header("Content-Type") == "application/problem+json"
        assert reply.json["status"] == reply.status and reply.json["code"]
