#!/usr/bin/env python3
"""Runs one benchmark peer and measures it from the outside.

usage: measure.py LOG IDLE_MS -- COMMAND...

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

A peer that has not ended after $BENCH_PEER_LIMIT_S seconds (default 1800:
ten times the slowest full-size run) is stopped, SIGTERM then SIGKILL 30 s
later, and reported with status 124 (as timeout(1) does): a peer waiting
for something that never comes must fail the run, not hang it.
"""
import os
import signal
import subprocess
import sys
import threading
import time


def main():
    log_path, idle_ms = sys.argv[1], int(sys.argv[2])
    assert sys.argv[3] == "--"
    cmd = sys.argv[4:]
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
    _, status, ru = os.wait4(p.pid, 0)
    term.cancel()
    kill.cancel()
    wall = time.monotonic() - t0
    code = os.waitstatus_to_exitcode(status)
    if timed_out.is_set():
        sys.stderr.write("measure.py: %s ran longer than %.0f s: stopped\n" % (cmd[0], limit))
        code = 124
    print("status=%d wall=%.3f busy=%.3f user=%.3f sys=%.3f maxrss=%d"
          % (code, wall, busy if busy is not None else -1, ru.ru_utime, ru.ru_stime, ru.ru_maxrss))


if __name__ == "__main__":
    main()
