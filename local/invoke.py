"""`make invoke FN=<operation> [EVENT=file.json] [SUB=alice] [GROUPS=admin] [PRETTY=1]`: run one handler, one event.

It runs against the table `make run` serves (found through .local/run.json; DYNAMODB_PORT and
TABLE_NAME, when set, win) and never starts a database of its own. Output is shaped as Lambda's:
stdout carries the response alone, exactly as Lambda returns it (one JSON line, `body` a string;
`| python -m json.tool` works); stderr carries the logs: the handler's (INFO, as deployed: one line for the
request; POWERTOOLS_LOG_LEVEL=DEBUG adds each DynamoDB call), its metrics and the REPORT line, one readable line
each (local.log_lines); LOG_FORMAT=json prints them as CloudWatch Logs would hold them, between START and END.
`--pretty` (PRETTY=1) prints the response indented, with `body` decoded, for people.
The handler runs in this process, so a breakpoint in it (or in the layer) stops there.

The event is an API Gateway REST proxy event, as events/ holds or `sam local generate-event
apigateway aws-proxy` writes. What a handler needs from it, and what this tool fills in:
- the caller, in `requestContext.authorizer.claims` (`sub`, `cognito:groups`), where API
  Gateway's Cognito authorizer puts it. SUB=/GROUPS= set those claims on any event; without
  them, claims already in the event count, then a bearer token in `Authorization` (as
  `make run` reads it);
- the route: an event whose `resource`/`httpMethod` are not this operation's (SAM's generic
  `/{proxy+}` one) is fitted to it: method, resource, path and path parameters from the route
  table (the demo world's ids unless the event names them);
- query parameters the operation does not take (SAM's sample `foo=bar`) are dropped;
- a body without `Content-Type` is sent as `application/json`;
- `headers` and `multiValueHeaders` (API Gateway sends both, the handler reads the latter) are made to agree:
  where they differ, the value in `headers` wins, as the one people edit.
Every change made to the event is said on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import importlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, TextIO

import routes
from local.events import event_path
from local.invocation import running
from local.lambda_runtime import report_line
from local.log_lines import for_people, raw_requested

USAGE = "make invoke FN=<operation> [EVENT=events/<operation>.json] [SUB=<sub>] [GROUPS=<group,...>] [PRETTY=1]"


def _note(message: str) -> None:
    print(f"ddbguard: {message}", file=sys.stderr)


def _header(event: dict[str, Any], name: str) -> str | None:
    for key, value in (event.get("headers") or {}).items():
        if key.lower() == name.lower():
            return value
    for key, values in (event.get("multiValueHeaders") or {}).items():
        if key.lower() == name.lower() and values:
            return values[-1]
    return None


def _set_header(event: dict[str, Any], name: str, value: str) -> None:
    event["headers"] = {**(event.get("headers") or {}), name: value}
    if event.get("multiValueHeaders") is not None:
        event["multiValueHeaders"] = {**event["multiValueHeaders"], name: [value]}


def fit_to_route(event: dict[str, Any], route: routes.Route) -> dict[str, Any]:
    """The event with the route's method, resource, path and parameters (see the module doc)."""
    from local import route_stories

    if event.get("resource") == route.path and event.get("httpMethod") == route.method:
        return event
    fitted = copy.deepcopy(event)
    given = fitted.get("pathParameters") or {}
    defaults = route_stories.event_path(route)
    parameters = {name: given.get(name) or defaults[name] for name in route.path_parameters}
    path = route.path
    for name, value in parameters.items():
        path = path.replace("{" + name + "}", value)
    fitted.update(resource=route.path, path=path, httpMethod=route.method, pathParameters=parameters or None)
    context = fitted.setdefault("requestContext", {})
    stage = context.get("stage") or "local"
    context.update(resourcePath=route.path, httpMethod=route.method, path=f"/{stage}{path}")
    _note(f"the event is for {event.get('httpMethod')} {event.get('resource')}: invoking it as {route.key} ({path})")
    return fitted


def without_unknown_query(event: dict[str, Any], taken: set[str]) -> dict[str, Any]:
    """Drop query parameters the operation's query model does not declare (it would answer 422)."""
    single = event.get("queryStringParameters") or {}
    multi = event.get("multiValueQueryStringParameters") or {}
    unknown = sorted((set(single) | set(multi)) - taken)
    if not unknown:
        return event
    kept_single = {k: v for k, v in single.items() if k in taken}
    kept_multi = {k: v for k, v in multi.items() if k in taken}
    event = {
        **event,
        "queryStringParameters": kept_single or None,
        "multiValueQueryStringParameters": kept_multi or None,
    }
    _note(f"dropped query parameters this operation does not take: {', '.join(unknown)}")
    return event


def with_caller(event: dict[str, Any], route: routes.Route, sub: str | None, groups: str | None) -> dict[str, Any]:
    """The claims a handler reads, from SUB/GROUPS, the event itself or its bearer token."""
    from local.tokens import claims_from_authorization

    if not route.auth:
        return event
    context = event.setdefault("requestContext", {})
    authorizer = context.get("authorizer") or {}
    if sub:
        given = {"sub": sub, "token_use": "id"}
        if groups:
            given["cognito:groups"] = groups
        context["authorizer"] = {**authorizer, "claims": given}
        return event
    if (authorizer.get("claims") or {}).get("sub"):
        return event
    claims = claims_from_authorization(_header(event, "Authorization"))
    if claims is not None:
        context["authorizer"] = {**authorizer, "claims": claims}
        _note(f"caller from the event's bearer token: sub={claims['sub']}")
    else:
        _note(
            "the event has no requestContext.authorizer.claims and no bearer token, so the handler will answer "
            "401: pass SUB=<sub> (and GROUPS=admin) to say who calls"
        )
    return event


def with_consistent_headers(event: dict[str, Any]) -> dict[str, Any]:
    """`multiValueHeaders` agreeing with `headers`: an edited Idempotency-Key in `headers` alone would otherwise be
    ignored (the handler reads `multiValueHeaders`), and the request answered as a replay of the old key."""
    single = event.get("headers") or {}
    multi = event.get("multiValueHeaders")
    if not single or multi is None:
        return event
    by_name = {name.lower(): name for name in multi}
    changed = []
    fixed = dict(multi)
    for name, value in single.items():
        present = by_name.get(name.lower())
        if present is None or fixed[present] != [value]:
            changed.append(name if present is None else present)
            fixed.pop(present or name, None)
            fixed[name] = [value]
    if changed:
        event = {**event, "multiValueHeaders": fixed}
        _note(
            "the event's headers and multiValueHeaders differ on "
            f"{', '.join(changed)}: using the value in headers for both (API Gateway sends both the same)"
        )
    return event


def with_content_type(event: dict[str, Any]) -> dict[str, Any]:
    if event.get("body") and _header(event, "Content-Type") is None:
        _set_header(event, "Content-Type", "application/json")
        _note("the event's body has no Content-Type: sending it as application/json")
    return event


def load_event(path: Path) -> dict[str, Any]:
    try:
        event = json.loads(path.read_text())
    except FileNotFoundError:
        raise SystemExit(
            f"ddbguard: no event file {path} (events/ has one per route; `make events` writes them)"
        ) from None
    except (OSError, ValueError) as error:
        raise SystemExit(f"ddbguard: cannot read the event {path}: {error}") from None
    if not isinstance(event, dict):
        raise SystemExit(f"ddbguard: {path} is not an API Gateway event (a JSON object)")
    return event


def _print_response(response: dict[str, Any], out: TextIO, *, pretty: bool) -> None:
    if not pretty:  # as Lambda returns it: the handler's dict serialised, `body` still the string it is
        out.write(json.dumps(response) + "\n")
        out.flush()
        return
    shown = dict(response)
    body = shown.get("body")
    with contextlib.suppress(ValueError, TypeError):  # not JSON: print it as it is
        shown["body"] = json.loads(body) if body else body
    out.write(json.dumps(shown, indent=2, ensure_ascii=False) + "\n")
    out.flush()


def main(argv: list[str] | None = None) -> int:
    out = sys.stdout
    # Logger lines and metrics (Powertools prints both) must not mix with the response.
    sys.stdout = sys.stderr
    raw = raw_requested()
    parser = argparse.ArgumentParser(prog="make invoke", usage=USAGE, description=__doc__.splitlines()[0])
    parser.add_argument("operation", help="route operation, e.g. " + ", ".join(r.operation for r in routes.ROUTES[:3]))
    parser.add_argument("--event", help="an API Gateway proxy event (default: events/<operation>.json)")
    parser.add_argument("--sub", help="caller: requestContext.authorizer.claims.sub")
    parser.add_argument("--groups", help="comma-separated cognito:groups, e.g. admin")
    parser.add_argument("--pretty", action="store_true", help="indent the response and decode its body (for people)")
    args = parser.parse_args(argv)
    try:
        route = routes.by_operation(args.operation)
    except KeyError:
        print(
            f"ddbguard: unknown operation {args.operation!r}; one of: {', '.join(r.operation for r in routes.ROUTES)}",
            file=sys.stderr,
        )
        return 2
    try:
        event = load_event(Path(args.event) if args.event else event_path(route))
    except SystemExit as error:
        print(error, file=sys.stderr)
        return 2
    event = with_content_type(
        with_consistent_headers(with_caller(fit_to_route(event, route), route, args.sub, args.groups))
    )

    from local.dynamodb_local import local_client
    from local.lambda_context import LambdaContext
    from local.runtime_env import configure
    from local.service_state import ServiceNotFound, find_table
    from local.table import ensure_table

    try:
        target = find_table()
    except ServiceNotFound as error:
        print(f"ddbguard: cannot invoke {route.operation}: {error}", file=sys.stderr)
        return 2
    # Deployed, the functions log at INFO; `make run`'s quieter default is for a terminal serving many requests.
    os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "INFO")
    configure(target.endpoint, target.table)
    if target.explicit:  # a DynamoDB Local of the caller's choosing may not have the table yet
        ensure_table(local_client(target.endpoint), target.table)
    _note(f"{route.key} -> {route.handler} on table {target.table} at {target.endpoint} ({target.source})")
    sys.stdout = for_people(sys.stderr, route.operation)  # LOG_FORMAT=json: as CloudWatch Logs holds them
    context = LambdaContext(function_name=f"ddbguard-{route.operation}")
    started = time.perf_counter()
    module = importlib.import_module(route.handler)  # the Init phase: this is always a cold start
    init_ms = (time.perf_counter() - started) * 1000
    query_model = getattr(getattr(module, "endpoint", None), "query_model", None)
    event = without_unknown_query(event, set(query_model.__annotations__) if query_model else set())
    if raw:  # Lambda's platform lines around the invocation; for people, the REPORT line alone says it ended
        print(f"START RequestId: {context.aws_request_id} Version: {context.function_version}")
    started = time.perf_counter()
    try:
        with running(route.operation):
            response = module.handler(event, context)
    finally:
        duration_ms = (time.perf_counter() - started) * 1000
        if raw:
            print(f"END RequestId: {context.aws_request_id}")
        print(report_line(context.aws_request_id, duration_ms, init_ms), flush=True)
    _print_response(response, out, pretty=args.pretty)
    return 0


if __name__ == "__main__":
    sys.exit(main())
