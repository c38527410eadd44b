"""Strict request bodies: size, media type, nesting depth, JSON syntax (no duplicate keys, NaN or
Infinity), clean strings, then a pydantic model with unknown fields forbidden.

Depth is checked first, on the raw text and without recursion: every later walk (the JSON parser,
the string check, pydantic) recurses, and a deep enough body would exhaust the stack.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ddbguard.errors import FieldError
from ddbguard.limits import MAX_BODY_BYTES, MAX_BODY_DEPTH, has_forbidden_characters
from ddbguard_api.http.headers import single_header
from ddbguard_api.http.problems import EdgeError
from ddbguard_api.models.body_validation import validate

if TYPE_CHECKING:  # pydantic-core is imported with the first validator built (ddbguard_api.models.body_validation)
    from pydantic_core import ValidationError

    from ddbguard_api.http.json_documents import JsonObject, JsonValue
    from ddbguard_api.http.proxy_events import ProxyEvent
    from ddbguard_api.models.body import Body

__all__ = ["check_depth", "field_errors", "parse_body", "parse_json", "raw_body"]


class _DuplicateKey(ValueError):
    pass


def _object_without_duplicates(pairs: list[tuple[str, JsonValue]]) -> JsonObject:
    result: JsonObject = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def raw_body(event: ProxyEvent) -> bytes:
    body = event.get("body")
    if body is None:
        return b""
    if event.get("isBase64Encoded"):
        try:
            data = base64.b64decode(body, validate=True)
        except (binascii.Error, ValueError):
            raise EdgeError(400, "malformed_body", "The body is not valid base64.") from None
    else:
        data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else bytes(body)
    if len(data) > MAX_BODY_BYTES:
        raise EdgeError(413, "payload_too_large", f"The body is over {MAX_BODY_BYTES} bytes.")
    return data


# A JSON string (escapes included), or one bracket outside strings.
_STRING_OR_BRACKET = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[\[\]{}]')
_OPENING = frozenset(b"[{")


def check_depth(data: bytes, limit: int = MAX_BODY_DEPTH) -> None:
    """400 `body_too_deep` when arrays and objects nest deeper than `limit`: one linear scan, no recursion."""
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(data):
        token = match.group()
        if len(token) != 1:
            continue  # a string: its brackets are text
        if token[0] in _OPENING:
            depth += 1
            if depth > limit:
                raise EdgeError(400, "body_too_deep", f"The body nests deeper than {limit} levels.")
        else:
            depth -= 1


def parse_json(data: bytes) -> Any:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise EdgeError(400, "malformed_json", "The body is not UTF-8.") from None
    try:
        # Decimal keeps 1.5 and 1e400 exact, so the model rejects them as non-integers (422),
        # instead of Python's float turning 1e400 into inf.
        return json.loads(
            text, object_pairs_hook=_object_without_duplicates, parse_constant=_reject_constant, parse_float=Decimal
        )
    except _DuplicateKey as duplicate:
        raise EdgeError(400, "duplicate_key", f"The JSON object repeats the key {str(duplicate)!r}.") from None
    except (ValueError, RecursionError):
        raise EdgeError(400, "malformed_json", "The body is not valid JSON.") from None


def _check_strings(value: Any, path: str, problems: list[FieldError]) -> None:
    if isinstance(value, str):
        if has_forbidden_characters(value):
            problems.append(
                FieldError(path or "body", "invalid_characters", "Control or zero-width characters are not allowed.")
            )
    elif isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            if has_forbidden_characters(key):
                problems.append(
                    FieldError(child, "invalid_characters", "Control or zero-width characters are not allowed.")
                )
            _check_strings(item, child, problems)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_strings(item, f"{path}[{index}]" if path else f"[{index}]", problems)


_CODES = {
    "missing": "required",
    "extra_forbidden": "unknown_field",
    "int_type": "not_an_integer",
    "string_type": "not_a_string",
    "less_than_equal": "too_large",
    "greater_than_equal": "too_small",
    "string_too_long": "too_long",
    "string_too_short": "too_short",
    "string_pattern_mismatch": "invalid_format",
    "literal_error": "invalid_value",
}


def field_errors(error: ValidationError) -> list[FieldError]:
    result = []
    for issue in error.errors(include_url=False):
        location = ".".join(str(part) for part in issue["loc"]) or "body"
        result.append(FieldError(location, _CODES.get(issue["type"], issue["type"]), issue["msg"]))
    return result


def parse_body(event: ProxyEvent, model: type[Body] | None) -> tuple[Body | None, JsonObject | None]:
    """(the body, an instance of `model`, or None; the parsed JSON for fingerprinting). Routes without a body class
    accept no body, or an empty JSON object."""
    data = raw_body(event)
    if not data.strip():
        if model is None:
            return None, None
        raise EdgeError(400, "body_required", "This route needs a JSON body.")
    content_type = (single_header(event, "Content-Type", "invalid_content_type") or "").split(";")[0].strip().lower()
    if content_type != "application/json" and not (
        content_type.startswith("application/") and content_type.endswith("+json")
    ):
        raise EdgeError(400, "unsupported_media_type", "Send the body as Content-Type: application/json.")
    check_depth(data)
    document = parse_json(data)
    if not isinstance(document, dict):
        raise EdgeError(422, "validation_failed", "The body must be a JSON object.")
    problems: list[FieldError] = []
    _check_strings(document, "", problems)
    if problems:
        raise EdgeError(422, "validation_failed", "The body has invalid characters.", problems)
    if model is None:
        if document:
            raise EdgeError(
                422,
                "validation_failed",
                "This route takes no body.",
                [FieldError(k, "unknown_field", "Extra inputs are not permitted") for k in document],
            )
        return None, document
    from pydantic_core import ValidationError  # pydantic's own; loaded with the validator by now

    try:
        return validate(model, document), document
    except ValidationError as error:
        raise EdgeError(422, "validation_failed", "The body is not valid.", field_errors(error)) from None
