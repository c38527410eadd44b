"""schemathesis.toml: the API's inherent answers to requests the schema admits, per kind of operation.

Which operations each answer applies to follows from the route table (every POST; every route that needs
If-Match; every route with a query model), so a new route needs no edit here. `make regenerate` rewrites the
file; tests/unit/test_schemathesis_config.py fails when the committed file differs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import routes
from local.paths import ROOT

CONFIG_PATH = ROOT / "schemathesis.toml"

HEADER = """\
# Generated from the route table by `make regenerate` (local/schemathesis_config.py): edit that, not this file.
# schemathesis with every check on (`--checks all`, stateful phase included): tests/api/test_schemathesis_cli.py
# in `make test` with a few examples per operation, `make fuzz` with many. Below are the API's inherent answers
# to requests the schema admits, each with its reason, on the operations that give them. Anything else a valid
# request gets must be one of schemathesis' defaults: 2xx, 3xx, 401, 403, 404, 409, 429 (5xx is listed there
# too, but still fails `not_a_server_error`).
"""

# (reason, which routes, the expected answers) in the file's order.
GROUPS: tuple[tuple[str, Callable[[routes.Route], bool], str], ...] = (
    (
        """\
# Every POST. 422 `idempotency_key_reused`: a generated Idempotency-Key repeats across generated requests, and
# the same key with another body is refused (the key names one request). 422 for integers: JSON Schema's
# `integer` admits 100.0, the service refuses any number written with a fraction or exponent, as it refuses
# every float (docs/decisions/058-integral-numbers-written-as-100-0-are-refused.md). 422 `validation_failed` on POST
# /transfers: from and to may be the same
# generated id, and a transfer to oneself is refused (no JSON Schema keyword says "differ").""",
        lambda route: route.method == "POST",
        'checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", '
        '"429", "5xx"]',
    ),
    (
        """\
# Every route that needs If-Match (versioned updates and deletes), besides the 422s above: a generated If-Match
# names a random version, so it is stale (412 `version_conflict`), and a request without one is 428
# `precondition_required` (RFC 6585), not 400: the header is what makes the write safe, and its absence has its
# own status.""",
        lambda route: route.if_match,
        'checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "412", '
        '"422", "428", "429", "5xx"]\n'
        'checks.missing_required_header.expected-statuses = ["400", "401", "403", "406", "415", "422", "428"]',
    ),
    (
        """\
# Every route with a query (pages): a cursor is opaque, the `nextCursor` of the previous page. A generated one
# is well-formed base64url but was never handed out, so it is refused (422); no schema can say "a value this
# server produced".""",
        lambda route: route.query is not None,
        'checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", '
        '"429", "5xx"]',
    ),
)


def render() -> str:
    blocks = [HEADER]
    for reason, applies, expected in GROUPS:
        names = [route.key for route in routes.ROUTES if applies(route)]
        listed = "".join(f'    "{name}",\n' for name in names)
        blocks.append(f"{reason}\n[[operations]]\ninclude-name = [\n{listed}]\n{expected}\n")
    return "\n".join(blocks)


def main() -> int:
    CONFIG_PATH.write_text(render(), encoding="utf-8")
    print(f"wrote {CONFIG_PATH.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
