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
"""
import os
import subprocess
import sys
import time


def main():
    log_path, idle_ms = sys.argv[1], int(sys.argv[2])
    assert sys.argv[3] == "--"
    cmd = sys.argv[4:]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    busy = None
    with open(log_path, "a", encoding="utf-8", errors="replace") as log:
        for raw in p.stderr:
            t = time.monotonic() - t0
            line = raw.decode("utf-8", "replace").rstrip("\n")
            log.write("[%8.3f] %s\n" % (t, line))
            if busy is None and "no input for" in line and "stopping" in line:
                busy = t - idle_ms / 1000.0
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    code = os.waitstatus_to_exitcode(status)
    print("status=%d wall=%.3f busy=%.3f user=%.3f sys=%.3f maxrss=%d"
          % (code, wall, busy if busy is not None else -1, ru.ru_utime, ru.ru_stime, ru.ru_maxrss))


if __name__ == "__main__":
    main()
