"""``python -m agents.serve [--host 127.0.0.1] [--port 8000] [--save-dir runs/games]
[--no-browser]``: serve the web app (:mod:`agents.serve`) and open it in the browser.

``--host`` other than a loopback address makes the games reachable from other machines (it
is said so when the server starts); the ``Host`` check then lets any host name through.
``--port 0`` picks a free port. Ctrl-C stops the server; finished games are already saved.
"""

from __future__ import annotations

import argparse
import socket
import threading
import webbrowser
from collections.abc import Sequence

from .app import LOOPBACK, create_app

DEFAULT_PORT = 8000


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agents.serve", description="Play the games in the browser."
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="port (0: a free one)")
    parser.add_argument(
        "--save-dir",
        default="runs/games",
        help="the folder games are saved to and loaded from (default runs/games)",
    )
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    args = parser.parse_args(argv)
    if not 0 <= args.port < 65536:
        parser.error(f"--port: expected 0..65535, got {args.port}")
    try:
        import uvicorn
    except ImportError:
        parser.error("the web app needs the serve extra: pip install -e '.[serve]'")
    local = args.host in LOOPBACK
    app = create_app(args.save_dir, allowed_hosts=LOOPBACK if local else None)
    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
        sock.listen(128)  # connectable from now on: requests wait until uvicorn serves
    except OSError as exc:
        parser.error(f"--host/--port: cannot bind {args.host}:{args.port} ({exc.strerror})")
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{shown}:{port}/"
    print(f"Serving the games at {url} (Ctrl-C stops; games are saved in {args.save_dir}/)")
    if not local:
        print(f"Warning: bound to {args.host}: other machines can reach these games.")
    if not args.no_browser:
        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    server.run(sockets=[sock])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
