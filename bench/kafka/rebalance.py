#!/usr/bin/env python3
"""bench/run-rebalance's driver: how long a consumer group of two instances
takes to process every partition again after an instance comes or goes.

usage: rebalance.py WORK PARTITIONS REPS GUARANTEE MODE=APP [MODE=APP...]

MODE is "dynamic" or "static" (run with --static-membership); APP is the
built bench/kafka/rebalance.stoat with its own application id (so its own
consumer group).  Each MODE in turn: start instances a and b, wait until
the group has settled, then REPS times the sequence

  kill9+restart  kill -9 b and start it again at once (same --instance-id)
  term+restart   SIGTERM b, wait for it to exit, start it again
  kill9          kill -9 b (a must take its partitions)
  join           start b (it must get a share)
  term           SIGTERM b (a must take its partitions)
  join           start b

Every instance writes "beat <partition>" to stderr (bench/kafka/beat.c) at
most every 100 ms per partition it processes, and its rebalance lines
("assigned", "revoked", "lost"); each line is timestamped here as it
arrives.  Per event, from the moment of the kill, SIGTERM or start:

  resume   every partition has beaten again (from an instance other than
           the one stopped) and an instance that (re)started has beaten:
           every partition is assigned and processed again;
  settle   the later of resume and the last rebalance line before the group
           is quiet for 3 s (the cooperative protocol's second round, the
           expiry of a dead member's session);
  exit     (SIGTERM) how long the instance took to exit.

Prints one line per event and a table of medians and maxima per MODE and
event (markdown), the figures in seconds; an event that does not resume in
90 s counts as 90 and is flagged.  Instance logs go to WORK/<mode>-<n>.log.
"""
import os
import signal
import statistics
import subprocess
import sys
import threading
import time

TIMEOUT = 90.0
QUIET = 3.0

lock = threading.Lock()
beats = []  # (time, instance, partition)
rebalances = []  # (time, instance, line)
t_start = time.monotonic()


class Instance:
    """One `run` of an app, its stderr read and timestamped by a thread."""
    count = 0
    every = []

    def __init__(self, app, mode, iid, guarantee, work, extra):
        Instance.count += 1
        self.name = "%s-%d-%s" % (mode, Instance.count, iid)
        # A small prefetch: by default librdkafka queues a whole backlog of
        # one partition ahead of the others, and a slow app then processes
        # its partitions one after another, which would hide when each
        # resumes.
        args = [app, "run", "-b", os.environ["BS"], "--instance-id", iid, "--guarantee", guarantee,
                "--batch", "20", "-X", "consumer.queued.min.messages=20",
                "-X", "consumer.max.partition.fetch.bytes=1024"] + extra
        if mode == "static":
            args.append("--static-membership")
        self.log = open(os.path.join(work, self.name + ".log"), "w")
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        Instance.every.append(self)
        self.started = time.monotonic()
        self.exited = None
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        for line in self.proc.stderr:
            t = time.monotonic()
            line = line.rstrip("\n")
            self.log.write("%8.3f %s\n" % (t - t_start, line))
            if line.startswith("beat "):
                with lock:
                    beats.append((t, self, int(line[5:])))
            elif ": assigned " in line or ": revoked " in line or ": lost " in line:
                with lock:
                    rebalances.append((t, self, line))
        self.log.flush()

    def stop(self, sig):
        self.proc.send_signal(sig)

    def wait(self, timeout=60):
        """Seconds until it exited (None: still running after timeout; killed then)."""
        t0 = time.monotonic()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None
        self.reader.join(5)
        return time.monotonic() - t0


def measure(t0, gone, started, partitions):
    """(resume, settle, timed_out) after an event at t0: see the module doc."""
    with lock:
        beats[:] = [b for b in beats if b[0] >= t0 - 1]
        rebalances[:] = [r for r in rebalances if r[0] >= t0 - 1]
    while True:
        now = time.monotonic()
        with lock:
            first = {}
            new_beat = started is None
            for t, inst, p in beats:
                if t < t0 or inst is gone:
                    continue
                first.setdefault(p, t)
                new_beat = new_beat or inst is started
            last_rb = max([t for t, inst, _ in rebalances if t >= t0 and inst is not gone], default=t0)
        resumed = len(first) == partitions and new_beat
        if resumed:
            resume = max(first.values())
            if now - max(resume, last_rb) >= QUIET:
                return resume - t0, max(resume, last_rb) - t0, False
        if now - t0 > TIMEOUT:
            return TIMEOUT, TIMEOUT, True
        time.sleep(0.05)


def main(argv):
    work, partitions, reps, guarantee = argv[1], int(argv[2]), int(argv[3]), argv[4]
    modes = [a.split("=", 1) for a in argv[5:]]
    extra = os.environ.get("EXTRA_ARGS", "").split()
    results = []  # (mode, event, resume, settle, exit, timed_out)
    for mode, app in modes:
        def start(iid):
            return Instance(app, mode, iid, guarantee, work, extra)

        def record(event, t0, gone=None, started=None, exit_s=None):
            resume, settle, out = measure(t0, gone, started, partitions)
            results.append((mode, event, resume, settle, exit_s, out))
            print("%-8s %-14s resume %5.1f s  settle %5.1f s%s%s" % (
                mode, event, resume, settle, "" if exit_s is None else "  exit %4.1f s" % exit_s,
                "  (TIMED OUT)" if out else ""), flush=True)

        a, b = start("a"), start("b")
        resume, settle, out = measure(time.monotonic(), None, b, partitions)
        print("%-8s %-14s resume %5.1f s  settle %5.1f s%s" % (mode, "first start", resume, settle,
                                                              "  (TIMED OUT)" if out else ""), flush=True)
        for _ in range(reps):
            t0 = time.monotonic()
            b.stop(signal.SIGKILL)
            b.wait()
            old, b = b, start("b")
            record("kill9+restart", t0, old, b)

            t0 = time.monotonic()
            b.stop(signal.SIGTERM)
            exit_s = b.wait()
            old, b = b, start("b")
            record("term+restart", t0, old, b, exit_s)

            t0 = time.monotonic()
            b.stop(signal.SIGKILL)
            b.wait()
            record("kill9", t0, b)

            t0 = time.monotonic()
            b = start("b")
            record("join", t0, None, b)

            t0 = time.monotonic()
            b.stop(signal.SIGTERM)
            exit_s = b.wait()
            record("term", t0, b, None, exit_s)

            t0 = time.monotonic()
            b = start("b")
            record("join", t0, None, b)
        for inst in (a, b):
            inst.stop(signal.SIGTERM)
        for inst in (a, b):
            if inst.wait() is None:
                print("%s: did not exit within 60 s of SIGTERM (killed)" % inst.name, flush=True)
        for inst in (a, b):
            rc = inst.proc.returncode
            if rc not in (0, -signal.SIGKILL):
                print("%s: exit status %s" % (inst.name, rc), flush=True)

    report(results, [m for m, _ in modes])


def report(results, names):
    """Prints the table of medians and maxima (markdown) and the exit times."""
    events = []
    for _, e, *_ in results:
        if e not in events:
            events.append(e)
    print()
    print("| event | " + " | ".join("%s resume median / max" % m for m in names) + " | " +
          " | ".join("%s settle median / max" % m for m in names) +
          (" | resume dynamic / static |" if names == ["dynamic", "static"] else " |"))
    ratio = names == ["dynamic", "static"]
    print("|---|" + "---|" * (2 * len(names) + ratio))
    for e in events:
        cells = []
        for what in (2, 3):
            for m in names:
                xs = [r[what] for r in results if r[0] == m and r[1] == e]
                out = any(r[5] for r in results if r[0] == m and r[1] == e)
                cells.append("%.1f / %.1f%s" % (statistics.median(xs), max(xs), " (timed out)" if out else "")
                             if xs else "-")
        if ratio:
            d, s = (statistics.median([r[2] for r in results if r[0] == m and r[1] == e]) for m in names)
            cells.append("%.1f" % (d / s) if s else "-")
        print("| %s | %s |" % (e, " | ".join(cells)))
    exits = [(m, r[4]) for r in results for m in [r[0]] if r[4] is not None]
    for m in names:
        xs = [x for mm, x in exits if mm == m]
        if xs:
            print("\n%s: SIGTERM to exit: median %.1f s, max %.1f s (%d)" % (m, statistics.median(xs), max(xs), len(xs)),
                  end="")
    print()


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))
    try:
        main(sys.argv)
    finally:
        for inst in Instance.every:
            if inst.proc.poll() is None:
                inst.proc.kill()
