#!/usr/bin/env python3
"""The bad-request sweep of tests/kafka/http_bad_requests against a running
app's endpoint: every request is written on a raw socket (so that it can be
malformed, huge or slow), and each answer is checked against what the
endpoint promises (README "Operating a running app"; runtime/src/http.c).

usage: http_sweep.py PORT
Exits non-zero with the first answer that is not the expected one.
"""
import socket
import sys
import time

PORT = int(sys.argv[1])
IDLE_SECONDS = 10      # runtime/src/http.c HTTP_IDLE_SECONDS: an idle connection is dropped after it
MAX_CONNECTIONS = 16   # HTTP_MAX_CONNECTIONS


def fail(msg):
    sys.exit("http_sweep: " + msg)


def exchange(raw, timeout=5.0):
    """Sends raw bytes, returns everything the server answers until it closes (b"" if it closes at
    once or resets the connection)."""
    s = socket.create_connection(("127.0.0.1", PORT), timeout=timeout)
    try:
        try:
            s.sendall(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass
        out = b""
        while True:
            try:
                b = s.recv(65536)
            except ConnectionResetError:
                break
            if not b:
                break
            out += b
        return out
    finally:
        s.close()


def status(answer):
    if not answer.startswith(b"HTTP/1."):
        return None
    return int(answer.split(b" ", 2)[1])


def header(answer, name):
    head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")[1:]
    for line in head:
        k, _, v = line.partition(":")
        if k.strip().lower() == name.lower():
            return v.strip()
    return None


def request(method, path, extra=""):
    return ("%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%sConnection: close\r\n\r\n" % (method, path, extra)).encode()


def expect(raw, codes, what):
    a = exchange(raw)
    if status(a) not in codes:
        fail("%s: expected %s, got %r" % (what, codes, a[:200]))
    return a


def live(what):
    expect(request("GET", "/health/live"), {200}, "/health/live after " + what)


def unknown_paths():
    for path in ("/nope", "/metrics/", "/health", "/health/live/x", "//metrics", "/%2e%2e/etc/passwd",
                 "/" + "a" * 2000):
        a = expect(request("GET", path), {404}, "GET " + path[:40])
        if b'"status": "not found"' not in a:
            fail("GET %s: not the JSON body: %r" % (path[:40], a[:300]))
    live("unknown paths")


def wrong_methods():
    for method, path, allow in (("DELETE", "/metrics", "GET, HEAD"), ("POST", "/health/live", "GET, HEAD"),
                                ("PUT", "/info", "GET, HEAD"), ("GET", "/pause", "POST"),
                                ("GET", "/resume", "POST"), ("PATCH", "/config", "GET, HEAD"),
                                ("BREW", "/state", "GET, HEAD")):
        extra = "Content-Length: 0\r\n" if method in ("POST", "PUT", "PATCH") else ""
        a = expect(request(method, path, extra), {405}, "%s %s" % (method, path))
        if header(a, "Allow") != allow:
            fail("%s %s: Allow is %r, expected %r" % (method, path, header(a, "Allow"), allow))
    # A body the endpoint does not read (no page takes one) is refused, not waited for.
    big = "x" * 100000
    a = exchange(("POST /pause HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                  % (len(big), big)).encode())
    if status(a) not in (413, None):
        fail("POST /pause with a 100 KB body: %r" % a[:200])
    # HEAD is GET without a body.
    a = expect(request("HEAD", "/metrics"), {200}, "HEAD /metrics")
    if a.split(b"\r\n\r\n", 1)[1] != b"":
        fail("HEAD /metrics has a body")
    live("wrong methods")


def huge_and_malformed():
    # One header larger than a connection's memory, then very many small ones.
    for what, raw in (("a 64 KB header", request("GET", "/metrics", "X-Big: %s\r\n" % ("a" * 65536))),
                      ("4,000 headers", request("GET", "/metrics", "".join("X-H%d: v\r\n" % i for i in range(4000)))),
                      ("a 64 KB URL", request("GET", "/metrics?" + "q" * 65536))):
        a = exchange(raw)
        if status(a) not in (413, 414, 431, None):
            fail("%s: %r" % (what, a[:200]))
        live(what)
    for what, raw, codes in (("not HTTP", b"HELLO\r\n\r\n", {400, None}),
                             # libmicrohttpd 0.9.75 serves it (RFC 9112 says 400): either, and it goes on.
                             ("HTTP/1.1 without Host", b"GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n",
                              {200, 400}),
                             ("binary junk", bytes(range(256)) * 8, {400, None}),
                             ("an unknown version", b"GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n", {400, 505, None})):
        a = exchange(raw)
        if status(a) not in codes:
            fail("%s: expected %s, got %r" % (what, codes, a[:200]))
        live(what)


def slow_clients():
    """More idle and trickling clients than the server has connections: the endpoint serves again when
    they go, and an idle one is dropped after IDLE_SECONDS without anyone closing it."""
    idle = []
    for _ in range(MAX_CONNECTIONS + 8):
        s = socket.create_connection(("127.0.0.1", PORT), timeout=5)
        s.sendall(b"GET /metrics HTTP/1.1\r\nHo")  # half a request, then nothing
        idle.append(s)
    time.sleep(1)
    # Wait for the server to drop them (no progress for IDLE_SECONDS): until then a new request may
    # wait or be refused, which is not checked; afterwards it is served.
    deadline = time.time() + IDLE_SECONDS + 15
    while True:
        try:
            a = exchange(request("GET", "/health/live"), timeout=2)
            if status(a) == 200:
                break
        except OSError:
            pass
        if time.time() > deadline:
            fail("/health/live not served %d s after %d idle clients connected" % (IDLE_SECONDS + 15, len(idle)))
        time.sleep(0.5)
    dropped = 0
    for s in idle:
        s.settimeout(0.5)
        try:
            while s.recv(4096):  # a 408 before the close is fine too
                pass
            dropped += 1
        except ConnectionResetError:
            dropped += 1
        except socket.timeout:
            pass
        s.close()
    if dropped < MAX_CONNECTIONS:
        fail("only %d of the idle clients were dropped by the server" % dropped)
    # Trickling clients (a byte a second) closed by themselves: the server serves at once after.
    trick = [socket.create_connection(("127.0.0.1", PORT), timeout=5) for _ in range(MAX_CONNECTIONS + 4)]
    for chunk in (b"GET /metrics HTTP/1.1\r\nX-Slow: ", b"x", b"x"):
        for s in trick:
            try:
                s.sendall(chunk)
            except OSError:
                pass  # one the server refused (beyond its connections)
        time.sleep(1)
    for s in trick:
        s.close()
    time.sleep(0.5)
    live("the trickling clients left")


def main():
    unknown_paths()
    wrong_methods()
    huge_and_malformed()
    slow_clients()
    a = expect(request("GET", "/metrics"), {200}, "/metrics at the end")
    if b"stoat_records_consumed_total" not in a:
        fail("/metrics at the end has no stoat_records_consumed_total")
    print("http_sweep: every answer as expected")


main()
