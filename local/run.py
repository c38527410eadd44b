"""`make run`: DynamoDB Local + the table + the demo world + the whole API on http://127.0.0.1:$PORT, until Ctrl-C.

While it serves, `.local/run.json` (local/service_state.py) tells the other local tools where it is. Its terminal
shows one readable line per log record (local.log_lines; LOG_FORMAT=json: the lines as deployed): each request's
outcome, its REPORT line, the settler's metrics. `DEBUG=<function>` puts that function under debugpy
(local.debugging).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

import routes
from ddbguard_api.http.cors import allowed_origins
from local.code_watcher import CodeWatcher, affected_handlers
from local.data_folder_lock import DataFolderClaim, DataFolderInUse, claim_data_folder
from local.debugging import UnknownFunction, attach_lines
from local.debugging import from_environment as debug_ports_from_environment
from local.dynamodb_local import DynamoDBLocal, DynamoDBLocalError, local_client, reachable_from_outside
from local.environments import ProcessEnvironments
from local.log_lines import for_people
from local.paths import FUNCTIONS, ROOT
from local.port_check import port_problem
from local.runtime_env import configure
from local.seed import report, report_walkthrough_blockers, seed_demo_world
from local.server import LocalApiServer
from local.service_state import RunningService, read_state, remove_state, write_state
from local.stream_settler import StreamSettler
from local.table import ensure_table
from local.tokens import make_token


def main() -> int:
    port = int(os.environ.get("PORT", "3000"))
    ddb_port = int(os.environ.get("DYNAMODB_PORT", "8000"))
    table = os.environ.get("TABLE_NAME", "ddbguard")
    data_dir = os.environ.get("DDB_DATA_DIR", ".local/dynamodb")
    try:
        debug_ports = debug_ports_from_environment(route.operation for route in routes.ROUTES)
    except UnknownFunction as error:
        print(f"ddbguard: {error}", file=sys.stderr)
        return 2
    # The stream settler runs its handler in this process: its logs and metrics read like the functions'.
    sys.stdout = for_people(sys.stdout, "settle_entries")
    problem = port_problem(port, ddb_port)
    if problem is not None:
        print(problem, file=sys.stderr)
        return 1
    data_folder = None if data_dir == "memory" else (ROOT / data_dir if not os.path.isabs(data_dir) else Path(data_dir))
    claim: DataFolderClaim | None = None
    if data_folder is not None:
        try:
            claim = claim_data_folder(data_folder, f"http://127.0.0.1:{port}")
        except DataFolderInUse as refusal:
            print(f"ddbguard: {refusal}", file=sys.stderr)
            return 1
    log_dir = ROOT / ".local"
    log_dir.mkdir(exist_ok=True)
    database = DynamoDBLocal(
        port=ddb_port,
        data_dir=data_folder,
        log_path=log_dir / "dynamodb-local.log",
        inherited_fds=(claim.fileno(),) if claim else (),  # the claim lasts while DynamoDB Local uses the folder
    )
    stop = threading.Event()
    server: LocalApiServer | None = None

    def on_signal(signum: int, frame: object) -> None:
        stop.set()
        if server is not None:
            threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        storage = "in memory" if data_dir == "memory" else data_dir
        print(f"ddbguard: starting DynamoDB Local on port {ddb_port} ({storage})")
        database.start()
        exposed = reachable_from_outside(ddb_port)
        if exposed:
            # DynamoDB Local 3.x binds every interface and has no option to bind one (README, "Local network").
            where = ", ".join(f"{address}:{ddb_port}" for address in exposed)
            print(
                f"ddbguard: WARNING: DynamoDB Local (no authentication) is also reachable on {where}; "
                "firewall that port or run `make run` only on a trusted network.",
                file=sys.stderr,
            )
        configure(database.endpoint, table)
        ensure_table(local_client(database.endpoint), table)
        seeded = os.environ.get("SEED", "1") != "0"
        if seeded:
            print("ddbguard: seeding the demo world (SEED=0 skips it)")
            sys.stdout.flush()
            print(report(seed_demo_world())[0])
            sys.stdout.flush()
            report_walkthrough_blockers(f"http://127.0.0.1:{port}")
        if stop.is_set():
            return 0
        # The table's stream, as the stack's event source mapping would deliver it: settles new entries.
        settler = StreamSettler(database.endpoint, table, local_client(database.endpoint))
        threading.Thread(target=settler.run, args=(stop,), name="stream-settler", daemon=True).start()
        by_handler = {route.operation: route.handler for route in routes.ROUTES}
        environments = ProcessEnvironments(debug_ports={by_handler[op]: port for op, port in debug_ports.items()})
        server = LocalApiServer("127.0.0.1", port, environments=environments)
        reloading = os.environ.get("RELOAD", "1") != "0"
        if reloading:
            watcher = CodeWatcher(FUNCTIONS, lambda changed: _reload(environments, changed))
            threading.Thread(target=watcher.run, args=(stop,), name="code-watcher", daemon=True).start()
        other = read_state()
        if other is not None and other.pid != os.getpid():
            print(f"ddbguard: another `make run` (pid {other.pid}) is up; local tools now use this one")
        state_file = write_state(
            RunningService(
                pid=os.getpid(),
                api_url=server.url,
                api_port=server.server_address[1],
                dynamodb_endpoint=database.endpoint,
                dynamodb_port=database.port or ddb_port,
                table=table,
            )
        )
        token = make_token("alice")
        print(f"ddbguard: API on {server.url}  (table {table} at {database.endpoint}; state in {state_file})")
        print(f"ddbguard: OpenAPI  {server.url}/openapi.json")
        print(f"ddbguard: API docs {server.url}/docs  (Swagger UI, no token needed)")
        origins = allowed_origins()
        if origins:
            print(f"ddbguard: CORS allowed for {', '.join(origins)}")
        print(f"ddbguard: demo token for sub=alice (local only, RS256-signed locally):\n  export TOKEN={token}")
        print(f'  curl -s {server.url}/accounts -H "Authorization: Bearer $TOKEN"    # alice\'s accounts')
        if seeded:
            print(
                "ddbguard: `make invoke FN=<operation>` runs events/<operation>.json against this table; Ctrl-C stops"
            )
        else:  # events/ name the demo world's accounts, which this table does not have
            print(
                "ddbguard: SEED=0: no demo world, so the events in events/ answer 404 until `make seed` creates it; "
                "Ctrl-C stops"
            )
        if reloading:
            print("ddbguard: watching functions/: a saved change reloads the functions it touches (RELOAD=0: off)")
        for line in attach_lines(debug_ports):
            print(line)
        sys.stdout.flush()
        server.serve_forever(poll_interval=0.2)
        return 0
    except DynamoDBLocalError as error:
        print(f"ddbguard: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"ddbguard: cannot serve on port {port}: {error}", file=sys.stderr)
        return 1
    finally:
        remove_state(os.getpid())
        if server is not None:
            server.server_close()
        database.stop()
        if claim is not None:
            claim.release()
        print("ddbguard: stopped")


def _reload(environments: ProcessEnvironments, changed: list[Path]) -> None:
    """One line per reload: what changed, and which functions start fresh (cold) on their next request."""
    affected = affected_handlers(changed, FUNCTIONS, {route.handler for route in routes.ROUTES})
    retired = environments.replace(affected)
    shown = ", ".join(str(path.relative_to(ROOT)) for path in changed[:3]) + (" ..." if len(changed) > 3 else "")
    which = "every function" if affected is None else ", ".join(sorted(affected))
    print(
        f"ddbguard: reloaded {which} ({shown} changed; {retired} environment(s) retired, "
        "the next request is a cold start; requests in flight finish on the old code)",
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(main())
