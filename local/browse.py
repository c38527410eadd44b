"""`make browse`: a web table browser (npm dynamodb-admin) on the table `make run` serves.

Found through .local/run.json (DYNAMODB_PORT / TABLE_NAME win), served on
http://127.0.0.1:$BROWSE_PORT [8001] only, until Ctrl-C. Prints where to look, among them the
demo account's item collection and its uniqueness locks (`UNIQ#...` items whose `owner` is
`ACCT#<accountId>`).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from urllib.parse import quote

from local import demo
from local.paths import ROOT
from local.service_state import ServiceNotFound, find_table

ADMIN_SCRIPT = ROOT / "node_modules" / "dynamodb-admin" / "dist" / "dynamodb-admin.js"
HOST = "127.0.0.1"


def table_url(base: str, table: str, filters: dict | None = None, operation: str = "scan", page_size: int = 50) -> str:
    """A dynamodb-admin page of the table, optionally filtered (its own query-string format)."""
    url = f"{base}/tables/{quote(table)}"
    if filters is None:
        return url
    query = f"operationType={operation}&pageSize={page_size}&filters={quote(json.dumps(filters))}"
    if operation == "query":
        query += "&queryableSelection=table"
    return f"{url}?{query}"


def account_items_url(base: str, table: str, account_id: str) -> str:
    """The account's item collection: profile, ledger balance, entries, holds (a Query on PK)."""
    return table_url(base, table, {"PK": {"type": "S", "value": f"ACCT#{account_id}", "operator": "="}}, "query")


def account_locks_url(base: str, table: str, account_id: str) -> str:
    """The account's uniqueness locks: the items whose `owner` is the account (a filtered Scan)."""
    return table_url(base, table, {"owner": {"type": "S", "value": f"ACCT#{account_id}", "operator": "="}})


def command(endpoint: str, port: int) -> list[str]:
    node = shutil.which("node") or "node"
    return [node, str(ADMIN_SCRIPT), "--dynamo-endpoint", endpoint, "--host", HOST, "--port", str(port)]


def admin_environment() -> dict[str, str]:
    # DynamoDB Local with -sharedDb ignores credentials; these only keep the SDK from looking for real ones.
    return {**os.environ, "AWS_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": "local", "AWS_SECRET_ACCESS_KEY": "local"}


def main() -> int:
    try:
        target = find_table()
    except ServiceNotFound as error:
        print(f"ddbguard: cannot browse: {error}", file=sys.stderr)
        return 2
    if not ADMIN_SCRIPT.exists():
        print("ddbguard: dynamodb-admin is not installed: run `make install`", file=sys.stderr)
        return 2
    port = int(os.environ.get("BROWSE_PORT", "8001"))
    base = f"http://{HOST}:{port}"
    print(f"ddbguard: table browser for {target.table} at {target.endpoint} ({target.source}) on {base}")
    print(f"  the table:                     {table_url(base, target.table)}")
    print(f"  the demo account's items:      {account_items_url(base, target.table, demo.MAIN_ACCOUNT)}")
    print(f"  the demo account's UNIQ# locks: {account_locks_url(base, target.table, demo.MAIN_ACCOUNT)}")
    print("ddbguard: Ctrl-C stops the browser (the table and `make run` keep running)")
    sys.stdout.flush()
    process = subprocess.Popen(command(target.endpoint, port), env=admin_environment())
    signal.signal(signal.SIGTERM, lambda *_: process.terminate())
    try:
        return process.wait()
    except KeyboardInterrupt:
        process.terminate()
        return process.wait()


if __name__ == "__main__":
    sys.exit(main())
