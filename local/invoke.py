"""`make invoke FN=<operation> [EVENT=events/<operation>.json]`: run one handler with one event.

Uses the local table at DYNAMODB_PORT (as `make run` leaves it); when nothing answers there,
starts a throwaway in-memory DynamoDB Local for this one invocation.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import sys
from pathlib import Path

import routes
from local.dynamodb_local import DynamoDBLocal, local_client, port_in_use
from local.events import event_path
from local.invocation import running
from local.lambda_context import LambdaContext
from local.runtime_env import configure
from local.table import ensure_table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("operation", help="route operation, e.g. " + ", ".join(r.operation for r in routes.ROUTES[:3]))
    parser.add_argument("--event", help="path to an API Gateway proxy event (default: events/<operation>.json)")
    args = parser.parse_args()
    try:
        route = routes.by_operation(args.operation)
    except KeyError:
        print(f"unknown operation {args.operation!r}; one of: {', '.join(r.operation for r in routes.ROUTES)}")
        return 2
    event = json.loads(Path(args.event or event_path(route)).read_text())
    port = int(os.environ.get("DYNAMODB_PORT", "8000"))
    table = os.environ.get("TABLE_NAME", "ddbguard")
    temporary = None
    if not port_in_use(port):
        print(f"(no DynamoDB Local on port {port}: starting a throwaway in-memory one)", file=sys.stderr)
        temporary = DynamoDBLocal().start()
        endpoint = temporary.endpoint
    else:
        endpoint = f"http://127.0.0.1:{port}"
    try:
        configure(endpoint, table)
        ensure_table(local_client(endpoint), table)
        handler = importlib.import_module(route.handler).handler
        with running(route.operation):
            response = handler(event, LambdaContext(function_name=f"ddbguard-{route.operation}"))
        body = response.get("body")
        with contextlib.suppress(ValueError):  # not JSON: print it as it is
            response["body"] = json.loads(body) if body else body
        print(json.dumps(response, indent=2, ensure_ascii=False))
        return 0
    finally:
        if temporary is not None:
            temporary.stop()


if __name__ == "__main__":
    sys.exit(main())
