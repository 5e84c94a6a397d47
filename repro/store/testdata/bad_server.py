#!/usr/bin/env python3
"""A misbehaving HTTP cache for the remote store's tests (127.0.0.1 only).

    bad_server.py DIR

Starts in the background, prints the port it listens on and writes its pid
to DIR/bad_server.pid; it serves until killed. The
first path component picks the behaviour for /<mode>/cas/<digest>:
  ok        a correct in-memory cache (PUT, GET, HEAD)
  500       every request answers 500
  flaky     the first 2 requests of each path answer 503, then like ok
  html      GET and HEAD answer 200 with an HTML page
  truncate  GET of a stored object sends half the body, then closes
  404       every request answers 404
"""
import http.server
import os
import socketserver
import sys
import threading

blobs = {}
seen = {}
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def split(self):
        parts = self.path.split("/", 2)
        mode = parts[1] if len(parts) > 1 else ""
        return mode, "/" + (parts[2] if len(parts) > 2 else "")

    def answer(self, code, body=b"", content_type="application/octet-stream", length=None):
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def common(self):
        mode, key = self.split()
        if self.command == "PUT":
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
        with lock:
            seen[self.path] = seen.get(self.path, 0) + 1
            count = seen[self.path]
        if mode == "500":
            return self.answer(500, b"internal error")
        if mode == "404":
            return self.answer(404, b"<html>not found</html>", "text/html")
        if mode == "flaky" and count <= 2:
            return self.answer(503, b"try again")
        if mode == "html" and self.command != "PUT":
            page = b"<!DOCTYPE html><html><body>Please log in</body></html>"
            return self.answer(200, page, "text/html")
        if self.command == "PUT":
            with lock:
                blobs[key] = body
            return self.answer(201)
        with lock:
            body = blobs.get(key)
        if body is None:
            return self.answer(404, b"not found", "text/plain")
        if mode == "truncate" and self.command == "GET":
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        return self.answer(200, body)

    do_GET = common
    do_HEAD = common
    do_PUT = common


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    directory = sys.argv[1]
    server = Server(("127.0.0.1", 0), Handler)
    port = server.server_address[1]
    pid = os.fork()
    if pid > 0:
        with open(os.path.join(directory, "bad_server.pid"), "w") as f:
            f.write(str(pid))
        print(port, flush=True)
        os._exit(0)
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    server.serve_forever()


if __name__ == "__main__":
    main()
