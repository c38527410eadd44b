"""The local API server for the throughput benchmark, in its own process (as `make run` serves it):
prints its URL, then serves; the table stream is settled in the background, as in the cloud."""

from __future__ import annotations

import os
import signal
import threading

from local.dynamodb_local import local_client
from local.server import LocalApiServer
from local.stream_settler import StreamSettler


class BenchServer(LocalApiServer):
    request_queue_size = 256  # 64 clients connecting at once: the default backlog of 5 resets connections


def main() -> None:
    endpoint, table = os.environ["AWS_ENDPOINT_URL_DYNAMODB"], os.environ["TABLE_NAME"]
    stop = threading.Event()
    settler = StreamSettler(endpoint, table, local_client(endpoint, timeout=10))
    threading.Thread(target=settler.run, args=(stop,), daemon=True).start()
    server = BenchServer("127.0.0.1", 0, quiet=True)
    # Terminated by the benchmark: stop serving, then stop the execution environments (processes).
    signal.signal(signal.SIGTERM, lambda signum, frame: threading.Thread(target=server.shutdown).start())
    print(server.url, flush=True)
    try:
        server.serve_forever(poll_interval=0.1)
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
