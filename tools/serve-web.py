#!/usr/bin/env python3
# Serves the page (dist/web, tools/build-web.sh) on this computer, cross-origin isolated: every answer carries
# Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp, so the page may share
# memory between threads and loads its build with threads (mha-tracer-mt.js); --plain sends neither (the
# one-thread build, as from any static server). Prints the port on the first line (--port 0: a free one).
#   python3 tools/serve-web.py [--plain] [--port 8000] [--bind 127.0.0.1] [DIR (dist/web)]
import argparse
import functools
import http.server
import os
import socketserver
import sys

ISOLATION = (("Cross-Origin-Opener-Policy", "same-origin"), ("Cross-Origin-Embedder-Policy", "require-corp"))


class Handler(http.server.SimpleHTTPRequestHandler):
    isolated = True
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm"}

    def end_headers(self):
        if self.isolated:
            for name, value in ISOLATION:
                self.send_header(name, value)
        super().end_headers()

    def log_message(self, *args):
        pass


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description="serve the mha-tracer page, cross-origin isolated unless --plain")
    ap.add_argument("--plain", action="store_true", help="without the isolation headers (the one-thread build)")
    ap.add_argument("--port", type=int, default=8000, help="0: a free port (printed)")
    ap.add_argument("--bind", default="127.0.0.1")
    ap.add_argument("dir", nargs="?", default=os.path.join(here, "..", "dist", "web"))
    a = ap.parse_args()
    Handler.isolated = not a.plain
    handler = functools.partial(Handler, directory=a.dir)
    with socketserver.ThreadingTCPServer((a.bind, a.port), handler) as server:
        print(server.server_address[1], flush=True)
        print(f"serving {os.path.abspath(a.dir)} at http://{a.bind}:{server.server_address[1]}/ "
              f"({'plain: one thread' if a.plain else 'cross-origin isolated: threads'}); Ctrl+C stops",
              file=sys.stderr, flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
