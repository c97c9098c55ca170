#!/usr/bin/env python3
"""Broadcast benchmark of `make bench`: a 10,000-recipient broadcast accepted in one request (its
time, Herald's CPU and memory), beside the same 10,000 recipients sent as single sends in the same run (the
baseline), then dispatched on the in-process simulator at the sender's throughput.

Runs the release `herald serve` (API and workers in one process, the in-process simulator) on a fresh SQLite
file, and on a fresh PostgreSQL database when HERALD_TEST_DATABASE_URL is set. Prints a Markdown section.
"""

import json
import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_http as h  # noqa: E402

RECIPIENTS = int(os.environ.get("HERALD_BENCH_BROADCAST", "10000"))
# The sender's throughput (messages/s): the pace the broadcast is held to.
THROUGHPUT = int(os.environ.get("HERALD_BENCH_BROADCAST_THROUGHPUT", "200"))


def request(method, url, key, body=None, timeout=600):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={
        "Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, json.loads(r.read() or b"null")


def peak_rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def seed(env):
    import subprocess

    subprocess.run([h.HERALD, "migrate"], env=env, check=True, capture_output=True)
    org = h.admin(env, "org", "create", "--name", "Broadcast bench", "--plan", "enterprise")
    # The simulator's seeded number, so dispatch reaches it.
    h.admin(env, "sender", "add", "--org", org["id"], "--number", "+15550001111", "--phone-number-id",
            "1000000001", "--waba-id", "2000000001", "--default", "--throughput", str(THROUGHPUT))
    return h.admin(env, "key", "create", "--org", org["id"])["key"]


def single_sends(database_url):
    """The baseline: RECIPIENTS single sends, spread over bench_http's organizations (each plan's rate is
    a policy, not a capacity), on an API-only process of its own database. Answers (seconds, accepted)."""
    env = h.herald_env(database_url)
    seeded = h.seed(env)
    server = h.Server(env, role="api")
    try:
        h.sync_templates(server, seeded)
        per = RECIPIENTS // len(seeded)
        procs = [
            h.oha(f"{server.base}/api/v1/messages/send-template", "-n", str(per), "-c", "4", key=key,
                  body=h.SEND_BODY)
            for _, _, key in seeded
        ]
        results = h.collect(procs)
    finally:
        server.stop()
    seconds = max(r["summary"]["total"] for r in results)
    return seconds, sum(h.ok_count(r, 202) for r in results)


def run(database_url, baseline_url, store, lines):
    single_seconds, single_ok = single_sends(baseline_url)
    env = h.herald_env(database_url)
    key = seed(env)
    server = h.Server(env, role="all")
    try:
        h.post(f"{server.base}/api/v1/templates/sync", key)
        # Every number ends in 0: the simulator's steering endings (…9995 to …9999, docs/api.md §13) would fail
        # some messages on purpose, and the spam-rate one pauses the broadcast.
        recipients = [{"to": f"+1556{i:06d}0", "client_reference": f"r{i}"} for i in range(RECIPIENTS)]
        body = {"template": {"name": "hello_world", "language": "en_US"}, "recipients": recipients}
        rss_before = server.rss_kib()
        meter = h.CpuMeter(server.proc.pid, server.database)
        started = time.time()
        status, created = request("POST", f"{server.base}/api/v1/broadcasts", key, body)
        accept_seconds = time.time() - started
        cpu = meter.stop()
        assert status == 202 and created["accepted"] == RECIPIENTS, created
        broadcast = created["id"]
        peak = peak_rss_kib(server.proc.pid)

        # Dispatch at the sender's throughput: from acceptance until every message left. Metered too, so a
        # rate short of the throughput shows whether the machine (idle share) or Herald's CPU limits it.
        dispatch_meter = h.CpuMeter(server.proc.pid, server.database)
        answered = time.time()
        deadline = started + RECIPIENTS / THROUGHPUT * 3 + 120
        # (time, messages that left Herald): the steady rate is read between 10 % and 90 % of them, apart
        # from the first pacer round's wait and the last messages' callbacks.
        samples = []
        while True:
            _, view = request("GET", f"{server.base}/api/v1/broadcasts/{broadcast}", key)
            counts = view["counts"]
            samples.append((time.time(), RECIPIENTS - counts["accepted"] - counts["scheduled"]))
            if view["status"] == "completed":
                break
            if time.time() > deadline:
                raise RuntimeError(f"the broadcast did not complete: {view}")
            time.sleep(0.25)
        finished = time.time()
        dispatch_cpu = dispatch_meter.stop()
        rate = RECIPIENTS / (finished - started)
        after_answer = RECIPIENTS / (finished - answered)
        low = next(s for s in samples if s[1] >= RECIPIENTS * 0.1)
        high = next(s for s in samples if s[1] >= RECIPIENTS * 0.9)
        steady = (high[1] - low[1]) / max(high[0] - low[0], 1e-9)

    finally:
        server.stop()
    lines.append(f"| {store}: one request of {RECIPIENTS:,} recipients accepted, s | {accept_seconds:.2f} |")
    lines.append(f"| {store}: the same count as single sends (32 clients, 8 organizations), s ({single_ok:,} accepted) "
                 f"| {single_seconds:.2f} |")
    lines.append(f"| {store}: broadcast ÷ single sends, time | {accept_seconds / max(single_seconds, 1e-9):.2f}× |")
    lines.append(f"| {store}: Herald CPU per accepted recipient, µs (PostgreSQL's: "
                 f"{h.us_per(cpu['pg'], RECIPIENTS):.0f} µs) | {h.us_per(cpu['herald'], RECIPIENTS):.0f} |")
    lines.append(f"| {store}: Herald RSS before → peak during the run, MiB | {rss_before / 1024:.0f} → "
                 f"{peak / 1024:.0f} |")
    lines.append(f"| {store}: dispatched, messages/s (sender throughput {THROUGHPUT}/s), from the request to "
                 f"`completed` | {rate:.0f} ({rate / THROUGHPUT:.2f}×) |")
    lines.append(f"| {store}: dispatched, messages/s, from the answer to `completed` | {after_answer:.0f} "
                 f"({after_answer / THROUGHPUT:.2f}×) |")
    lines.append(f"| {store}: dispatched, messages/s, steady (from 10 % to 90 % of them gone) | {steady:.0f} "
                 f"({steady / THROUGHPUT:.2f}×) |")
    lines.append(f"| {store}: while dispatching, Herald CPU per message, µs (PostgreSQL's: "
                 f"{h.us_per(dispatch_cpu['pg'], RECIPIENTS):.0f} µs; the simulator and the callbacks run in "
                 f"Herald's process) | {h.us_per(dispatch_cpu['herald'], RECIPIENTS):.0f} |")
    lines.append(f"| {store}: while dispatching, machine idle, % | {dispatch_cpu['idle'] * 100:.0f} |")


def main():
    lines = [
        "## Broadcasts",
        "",
        f"Command: `make bench` (`scripts/bench_broadcast.py`). The release `herald serve` (API and workers, the "
        f"in-process simulator), one organization on the enterprise plan whose sender allows {THROUGHPUT} "
        f"messages/s; `POST /api/v1/broadcasts` with {RECIPIENTS:,} recipients of `hello_world`, timed from the "
        f"request to its answer and then to `completed`; then the same count of single `send-template` requests "
        f"by `oha` (32 connections over 8 organizations, an API-only process on a database of its own) as the"
        f" baseline. One run each.",
        "",
        "| figure | value |",
        "|---|---|",
    ]
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        run(f"sqlite://{tmp}/herald.db", f"sqlite://{tmp}/baseline.db", "SQLite", lines)
    if h.ADMIN_URL:
        db = h.PgDatabase(f"herald_bench_broadcast_{os.getpid()}")
        baseline = h.PgDatabase(f"herald_bench_singles_{os.getpid()}")
        try:
            run(db.url, baseline.url, "PostgreSQL", lines)
        finally:
            db.drop()
            baseline.drop()
    print("\n".join(lines))
    print()


if __name__ == "__main__":
    main()
