#!/usr/bin/env python3
"""Runs one benchmark peer and measures it from the outside.

usage: measure.py LOG IDLE_MS [--scrape SECONDS] -- COMMAND...

Starts COMMAND with its stderr on a pipe, copies every stderr line to LOG
with the seconds since the start, and takes the process's own resource
usage from wait4() (so this script's CPU is not counted):

  wall      seconds from the start until the process has exited
  busy      seconds from the start until the peer's idle-exit line
            ("no input for N ms: stopping") minus IDLE_MS: the time until
            its last input record, everything before it committed
            (both peers stop only when nothing is left uncommitted)
  user sys  CPU seconds of the process (all its threads), whole run
  maxrss    peak resident set size, KiB

Prints one line "status=S wall=W busy=B user=U sys=S maxrss=K".

--scrape SECONDS: once the peer's log says "http: serving on
http://127.0.0.1:PORT" (stoat's `--http 0`), GET /metrics from it every
SECONDS, as Prometheus would, until it exits; the scrapes are counted in
the output line (scrapes=N, failed ones as scrape_errors=N).  Their cost
to the peer is in its CPU figures; this script's own is not.

A peer that has not ended after $BENCH_PEER_LIMIT_S seconds (default 1800:
ten times the slowest full-size run) is stopped, SIGTERM then SIGKILL 30 s
later, and reported with status 124 (as timeout(1) does): a peer waiting
for something that never comes must fail the run, not hang it.
"""
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request


def scraper(port, every, done, counts):
    """GETs /metrics every `every` seconds until `done` is set, counting the scrapes."""
    url = "http://127.0.0.1:%d/metrics" % port
    while not done.wait(every):
        try:
            with urllib.request.urlopen(url, timeout=every) as r:
                r.read()
            counts[0] += 1
        except OSError:
            counts[1] += 1


def main():
    log_path, idle_ms = sys.argv[1], int(sys.argv[2])
    rest = sys.argv[3:]
    scrape_every = None
    if rest[:1] == ["--scrape"]:
        scrape_every = float(rest[1])
        rest = rest[2:]
    assert rest[:1] == ["--"], "usage: measure.py LOG IDLE_MS [--scrape SECONDS] -- COMMAND..."
    cmd = rest[1:]
    scrapes = [0, 0]
    scraping = None
    done = threading.Event()
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    limit = float(os.environ.get("BENCH_PEER_LIMIT_S", "1800"))
    timed_out = threading.Event()

    def stop(sig):
        timed_out.set()
        try:
            os.kill(p.pid, sig)
        except ProcessLookupError:
            pass

    term = threading.Timer(limit, stop, (signal.SIGTERM,))
    kill = threading.Timer(limit + 30, stop, (signal.SIGKILL,))
    for t in (term, kill):
        t.daemon = True
        t.start()
    busy = None
    with open(log_path, "a", encoding="utf-8", errors="replace") as log:
        for raw in p.stderr:
            t = time.monotonic() - t0
            line = raw.decode("utf-8", "replace").rstrip("\n")
            log.write("[%8.3f] %s\n" % (t, line))
            if busy is None and "no input for" in line and "stopping" in line:
                busy = t - idle_ms / 1000.0
            m = re.search(r"http: serving on http://127\.0\.0\.1:(\d+)", line) if scrape_every else None
            if m and scraping is None:
                scraping = threading.Thread(target=scraper, args=(int(m.group(1)), scrape_every, done, scrapes))
                scraping.daemon = True
                scraping.start()
    _, status, ru = os.wait4(p.pid, 0)
    done.set()
    if scraping:
        scraping.join()
    term.cancel()
    kill.cancel()
    wall = time.monotonic() - t0
    code = os.waitstatus_to_exitcode(status)
    if timed_out.is_set():
        sys.stderr.write("measure.py: %s ran longer than %.0f s: stopped\n" % (cmd[0], limit))
        code = 124
    print("status=%d wall=%.3f busy=%.3f user=%.3f sys=%.3f maxrss=%d%s"
          % (code, wall, busy if busy is not None else -1, ru.ru_utime, ru.ru_stime, ru.ru_maxrss,
             " scrapes=%d scrape_errors=%d" % tuple(scrapes) if scrape_every else ""))


if __name__ == "__main__":
    main()
