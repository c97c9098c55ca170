#!/usr/bin/env python3
"""HTTP-level benchmarks of `make bench`: P1 durable accepts (PostgreSQL beside pgbench, and SQLite), P2 latency
at a constant offered rate, P5 footprint, and the HTTP baseline (an empty actix handler).

Runs the release `herald` binary as a real process against its own databases (a fresh PostgreSQL database
created and dropped here, never the shared server's settings) and drives it with `oha`. Prints a Markdown
section to append to docs/benchmarks.md. Invoked by scripts/bench.sh, which builds and installs the tools.
"""

import contextlib
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERALD = os.environ.get("HERALD_BIN", os.path.join(ROOT, "target/release/herald"))
BASELINE = os.path.join(ROOT, "target/release/examples/http_baseline")
OHA = os.environ.get("OHA", os.path.join(ROOT, ".tools/bin/oha"))
RUNS = int(os.environ.get("HERALD_BENCH_RUNS", "3"))
SECONDS = int(os.environ.get("HERALD_BENCH_SECONDS", "8"))
# Concurrent clients of P1, the same for Herald and for pgbench.
CLIENTS = int(os.environ.get("HERALD_BENCH_CLIENTS", "32"))
# The enterprise plan allows 1,000 sends/s (burst 2,000) per organization: a policy, not a capacity. With
# ORGS organizations the limiter alone caps a run of S seconds at ORGS × (1,000 + 2,000 / S) accepts/s
# (8 × 1,250 = 10,000/s for 8 s), well above what the store takes, so P1 measures Herald and not the plan.
ORGS = 8
ADMIN_URL = os.environ.get("HERALD_TEST_DATABASE_URL", "")
# `HERALD_BENCH_P1_ONLY=1`: P1 on PostgreSQL alone (a quick check of the P1 figures); `HERALD_BIN` another
# `herald` binary (a build before a change, for a before/after on the same machine at the same moment).
P1_ONLY = os.environ.get("HERALD_BENCH_P1_ONLY") == "1"
SEND_BODY = json.dumps({"to": "+15551234567", "template": {"name": "hello_world", "language": "en_US"}})
verdicts = []
CLK_TCK = os.sysconf("SC_CLK_TCK")


def verdict(name, value, target, met):
    verdicts.append(f"| {name} | {value} | {target} | {'met' if met else 'MISSED'} |")


def proc_stat(pid):
    """/proc/PID/stat's fields after the command name (fields[0] is the state, field 3)."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def proc_cpu(pid):
    """CPU seconds (user + system) a live process has used so far."""
    fields = proc_stat(pid)
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def postgres_cpu(database=None):
    """CPU seconds used so far by the local PostgreSQL server: with `database`, by the live backends
    connected to it (their process title names it) as {pid: seconds}; without, by every live `postgres`
    process plus what the postmaster has reaped from backends already gone (its children's times)."""
    total, backends = 0, {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() != "postgres":
                    continue
            if database is not None:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if f" {database} ".encode() not in f.read().replace(b"\0", b" "):
                        continue
            fields = proc_stat(pid)
        except OSError:
            continue
        used = int(fields[11]) + int(fields[12])
        if database is not None:
            backends[pid] = used / CLK_TCK
            continue
        total += used
        try:
            with open(f"/proc/{fields[1]}/comm") as f:
                parent_is_postgres = f.read().strip() == "postgres"
        except OSError:
            parent_is_postgres = False
        if not parent_is_postgres:
            total += int(fields[13]) + int(fields[14])
    return backends if database is not None else total / CLK_TCK


def machine_times():
    """(idle + iowait, all, steal) jiffies of every CPU since boot, from /proc/stat. Steal is the time this
    virtual machine was ready to run but the host ran something else: the runs it marks are slowed by the
    host, not by what they measure (P2 runs with 3.8 % and 6.7 % steal read a p99 of 235 and 266 ms, their
    neighbours under 1 % 10-17 ms)."""
    with open("/proc/stat") as f:
        values = [int(v) for v in f.readline().split()[1:9]]
    return values[3] + values[4], sum(values), values[7]


def run_queue_wait(pid):
    """Nanoseconds a live process's threads have spent runnable but waiting for a CPU (/proc schedstat), or
    None once it is gone."""
    total = 0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[1])
        except (OSError, IndexError, ValueError):
            pass
    return total


def cpu_pressure():
    """Microseconds during which some runnable task waited for a CPU, since boot (/proc/pressure/cpu), or
    None where the kernel keeps no pressure figures."""
    try:
        with open("/proc/pressure/cpu") as f:
            return int(f.readline().split("total=")[1])
    except (OSError, IndexError, ValueError):
        return None


class WaitMeter:
    """Where a window's latency can go besides the handler: the seconds that Herald's threads, the PostgreSQL
    backends of `database` and the load generators `procs` spent runnable but without a CPU, and the share of
    the window in which some task waited (CPU pressure). Sampled every 0.2 s, as processes come and go."""

    def __init__(self, herald_pid, database, procs):
        import threading

        self.herald_pid, self.database, self.procs = herald_pid, database, procs
        self.herald_first = run_queue_wait(herald_pid) or 0
        self.pg_first = {pid: run_queue_wait(pid) or 0 for pid in postgres_cpu(database)}
        self.generators_first = {p.pid: run_queue_wait(p.pid) or 0 for p in procs}
        self.last = {}
        self.pressure, self.started = cpu_pressure(), time.time()
        self.sampling = True
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()

    def sample(self):
        while self.sampling:
            pids = [("herald", self.herald_pid)] + [("pg", int(pid)) for pid in postgres_cpu(self.database)]
            pids += [("generators", p.pid) for p in self.procs]
            for group, pid in pids:
                value = run_queue_wait(pid)
                if value is not None:
                    self.last[(group, pid)] = value
            time.sleep(0.2)

    def stop(self):
        """{group: run-queue wait in ms per second of the window} and the CPU pressure share (or None)."""
        self.sampling = False
        self.thread.join()
        elapsed = max(1e-3, time.time() - self.started)
        firsts = {"herald": lambda pid: self.herald_first, "pg": lambda pid: self.pg_first.get(str(pid), 0),
                  "generators": lambda pid: self.generators_first.get(pid, 0)}
        first = lambda group, pid: firsts[group](pid)
        waits = {"herald": 0.0, "pg": 0.0, "generators": 0.0}
        for (group, pid), value in self.last.items():
            waits[group] += (value - first(group, pid)) / 1e6 / elapsed
        pressure = cpu_pressure()
        share = None if pressure is None or self.pressure is None else (pressure - self.pressure) / 1e6 / elapsed
        return waits, share


def durations(metrics_base, histogram, label):
    """A histogram of Herald's own, from its /metrics: the count by bucket ({le: count}) of the series whose labels
    contain `label`."""
    with urllib.request.urlopen(f"{metrics_base}/metrics", timeout=10) as r:
        text = r.read().decode()
    buckets = {}
    for line in text.splitlines():
        if line.startswith(f"{histogram}_bucket") and label in line:
            buckets[line.split('le="')[1].split('"')[0]] = float(line.rsplit(" ", 1)[1])
    return buckets


def send_durations(metrics_base):
    """Herald's own count of send-template requests by duration bucket ({le: count})."""
    return durations(metrics_base, "herald_http_request_duration_seconds", "send-template")


def accept_writes(metrics_base):
    """Herald's own count of accept batches by how long their transaction took ({le: count})."""
    return durations(metrics_base, "herald_group_commit_write_seconds", 'kind="accept"')


def over(before, after, le):
    """Of what a histogram counted between `before` and `after`, the share above the bucket `le` (%), and the count."""
    total = after.get("+Inf", 0) - before.get("+Inf", 0)
    above = total - (after.get(le, 0) - before.get(le, 0))
    return 100 * above / max(1, total), above


class CpuMeter:
    """CPU seconds of Herald (a pid), of PostgreSQL and of this script's waited-for children (pgbench)
    between start and stop, and the machine's idle share meanwhile. Robust to a busy machine where
    throughput is not: a cost per operation, not a rate. PostgreSQL's share is that of the backends of the
    bench's own database (sampled every 0.2 s, so backends that come and go, pgbench's, are counted up to
    their last sample): other users of a shared server are left out, and so is the server's own background
    work (WAL writer, checkpointer)."""

    def __init__(self, herald_pid=None, database=None):
        self.herald_pid = herald_pid
        self.database = database or os.environ.get("HERALD_BENCH_DATABASE")
        self.herald = proc_cpu(herald_pid) if herald_pid else 0.0
        self.pg = postgres_cpu()
        self.first = postgres_cpu(self.database) if self.database else {}
        self.last = dict(self.first)
        self.sampling = True
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.children = usage.ru_utime + usage.ru_stime
        self.idle, self.all, self.steal = machine_times()
        if self.database:
            import threading

            self.thread = threading.Thread(target=self.sample, daemon=True)
            self.thread.start()

    def sample(self):
        while self.sampling:
            self.last.update(postgres_cpu(self.database))
            time.sleep(0.2)

    def stop(self):
        idle, total, steal = machine_times()
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        if self.database:
            self.sampling = False
            self.thread.join()
            self.last.update(postgres_cpu(self.database))
            pg = sum(v - self.first.get(pid, 0.0) for pid, v in self.last.items())
        else:
            pg = postgres_cpu() - self.pg
        return {
            "herald": (proc_cpu(self.herald_pid) - self.herald) if self.herald_pid else 0.0,
            "pg": pg,
            "children": usage.ru_utime + usage.ru_stime - self.children,
            "idle": (idle - self.idle) / max(1, total - self.all),
            "steal": (steal - self.steal) / max(1, total - self.all),
        }


def us_per(seconds, operations):
    return seconds * 1e6 / max(1, operations)


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def herald_env(database_url, **extra):
    env = dict(os.environ)
    env.update(
        HERALD_DATABASE_URL=database_url,
        HERALD_LOG_FORMAT="text",
        RUST_LOG="error",
        # Worker processes on PostgreSQL need the key that seals access tokens (none are stored here).
        HERALD_ENCRYPTION_KEY="AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
    )
    env.update({k: str(v) for k, v in extra.items()})
    return env


def admin(env, *args):
    out = subprocess.run([HERALD, "admin", "--json", *args], env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


class Server:
    """A `herald serve` process."""

    def __init__(self, env, role="api"):
        url = env.get("HERALD_DATABASE_URL", "")
        # The PostgreSQL database it uses (its backends' CPU is Herald's share of the server's).
        self.database = url.rsplit("/", 1)[1] if url.startswith("postgres") else None
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = dict(env, HERALD_LISTEN=f"127.0.0.1:{self.port}")
        self.proc = subprocess.Popen(
            [HERALD, "serve", "--role", role], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wait_http(f"{self.base}/healthz")

    def rss_kib(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def wait_http(url, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except Exception:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not answer")


def post(url, key, body=b""):
    req = urllib.request.Request(url, data=body, method="POST", headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return r.status


def seed(env):
    """Migrates and creates ORGS enterprise organizations with a sender and a key each; returns
    [(org_id, sender_id, key)]."""
    subprocess.run([HERALD, "migrate"], env=env, check=True, capture_output=True)
    seeded = []
    for i in range(ORGS):
        org = admin(env, "org", "create", "--name", f"Bench {i}", "--plan", "enterprise")
        org_id = org["id"]
        sender = admin(
            env, "sender", "add", "--org", org_id, "--number", f"+1555700{i:04d}",
            "--phone-number-id", f"30000000{i:02d}", "--waba-id", "2000000001", "--default",
            "--throughput", "1000",
            # Every organization has a number of the simulator's one business account, on purpose.
            "--shared-waba",
        )
        key = admin(env, "key", "create", "--org", org_id)
        seeded.append((org_id, sender["id"], key["key"]))
    return seeded


def sync_templates(server, seeded):
    for _, _, key in seeded:
        post(f"{server.base}/api/v1/templates/sync", key)


def oha(url, *args, key=None, body=None):
    cmd = [OHA, "--no-tui", "--output-format", "json", *args]
    if key:
        cmd += ["-H", f"Authorization: Bearer {key}"]
    if body:
        cmd += ["-m", "POST", "-T", "application/json", "-d", body]
    return subprocess.Popen(cmd + [url], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def collect(procs):
    results = []
    for p in procs:
        out, _ = p.communicate()
        results.append(json.loads(out))
    return results


def ok_count(result, status):
    return int(result.get("statusCodeDistribution", {}).get(str(status), 0))


def accepts_per_second(server, seeded, clients=CLIENTS, costs=None):
    """Closed-loop load over every organization; 202s per second. With `costs` (a list), appends the run's
    CPU cost: Herald's and PostgreSQL's µs per accept and the machine's idle share."""
    per = max(1, clients // len(seeded))
    meter = CpuMeter(server.proc.pid, server.database)
    procs = [
        oha(f"{server.base}/api/v1/messages/send-template", "-z", f"{SECONDS}s", "-c", str(per), key=key,
            body=SEND_BODY)
        for _, _, key in seeded
    ]
    started = time.time()
    results = collect(procs)
    cpu = meter.stop()
    elapsed = max(r["summary"]["total"] for r in results) or (time.time() - started)
    limited = sum(ok_count(r, 429) for r in results)
    if limited:
        log(f"warning: {limited} sends answered 429: the plan's rate, not Herald, capped this run")
    accepted = sum(ok_count(r, 202) for r in results)
    if costs is not None:
        costs.append({"herald": us_per(cpu["herald"], accepted), "pg": us_per(cpu["pg"], accepted),
                      "idle": cpu["idle"] * 100, "steal": cpu["steal"] * 100})
    return accepted / elapsed


def pgbench_tps(db_url, org_id, sender_id, clients=CLIENTS, costs=None):
    """pgbench running the equivalent transaction: the message, its event, its outbox row, one commit. With
    `costs`, appends the client's and the server's CPU µs per transaction and the machine's idle share."""
    script = tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False)
    content = json.dumps({"kind": "template", "name": "hello_world", "language": "en_US"})
    script.write(f"""\\set r random(1, 1000000000000)
BEGIN;
INSERT INTO messages (id, organization_id, sender_id, from_number, to_number, message_type, content, status, created_at, updated_at, accepted_at) VALUES ('pgb' || :client_id || '-' || :r, '{org_id}', '{sender_id}', '+15557000000', '+15551234567', 'template', '{content}', 'accepted', now(), now(), now());
INSERT INTO message_events (id, organization_id, message_id, status, applied, source, occurred_at, recorded_at) VALUES ('pgbe' || :client_id || '-' || :r, '{org_id}', 'pgb' || :client_id || '-' || :r, 'accepted', TRUE, 'herald', now(), now());
INSERT INTO outbox (id, organization_id, message_id, sender_id, state, available_at, deadline, attempts, created_at, updated_at) VALUES ('pgbj' || :client_id || '-' || :r, '{org_id}', 'pgb' || :client_id || '-' || :r, '{sender_id}', 'done', now(), now(), 0, now(), now());
COMMIT;
""")
    script.close()
    cmd = ["pgbench", "-n", "-c", str(clients), "-j", "2", "-T", str(SECONDS), "-M", "prepared", "-f",
           script.name, db_url]
    meter = CpuMeter(database=db_url.rsplit("/", 1)[1])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    cpu = meter.stop()
    os.unlink(script.name)
    transactions = 0
    for line in out.splitlines():
        if line.startswith("number of transactions actually processed:"):
            transactions = int(line.split(":")[1].split("/")[0])
    for line in out.splitlines():
        if line.startswith("tps = "):
            if costs is not None:
                costs.append({"client": us_per(cpu["children"], transactions), "pg": us_per(cpu["pg"], transactions),
                              "idle": cpu["idle"] * 100, "steal": cpu["steal"] * 100})
            return float(line.split()[2])
    raise RuntimeError(f"no tps in pgbench output: {out}")


def stats(values):
    values = sorted(values)
    return statistics.median(values), values[0], values[-1]


def fmt(values, unit=""):
    med, lo, hi = stats(values)
    return f"{med:,.0f}{unit} | {lo:,.0f}{unit} | {hi:,.0f}{unit}"


def fmt1(values):
    med, lo, hi = stats(values)
    return f"{med:.1f} | {lo:.1f} | {hi:.1f}"


def psql(sql):
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", ADMIN_URL, "-c", sql], check=True,
                   capture_output=True)


class PgDatabase:
    def __init__(self, name):
        self.name = name
        psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        psql(f'CREATE DATABASE "{name}"')
        base = ADMIN_URL.rsplit("/", 1)[0]
        self.url = f"{base}/{name}"

    def drop(self):
        psql(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


# The P1 configurations measured side by side in each run: what each optimisation buys, and what the
# metrics and the shipped log level cost, as ratios.
#   (label, group commit, read cache in ms, metrics served, accept batches in flight: 0 the default, RUST_LOG)
P1_CONFIGS = [
    ("one transaction per accept, uncached reads (before)", False, 0, False, 0, "error"),
    ("group commit, uncached reads", True, 0, False, 0, "error"),
    ("group commit and the read cache (after; the defaults, metrics off)", True, 500, False, 0, "error"),
    ("the defaults with metrics on (`HERALD_METRICS_LISTEN`)", True, 500, True, 0, "error"),
    ("the defaults with 4 batches in flight (`HERALD_ACCEPT_WRITERS=4`; the default is 1)", True, 500, False, 4,
     "error"),
    ("the defaults at the shipped log level (`RUST_LOG=info`; the other rows run at `error`)", True, 500, False, 0,
     "info"),
]
# The defaults, the figure compared with pgbench and the baseline.
DEFAULTS = 2
METRICS_ON = 3
SEVERAL_WRITERS = 4
LOG_INFO = 5


def p1_herald(database_url, group_commit, read_cache_ms=500, metrics=False, writers=0, log_level="error"):
    """One P1 set-up: a fresh store, seeded, served; returns (server, seeded, env). `metrics`: True for a metrics
    listener on any port, or the address to serve them on."""
    extra = {"HERALD_METRICS_LISTEN": metrics if isinstance(metrics, str) else "127.0.0.1:0"} if metrics else {}
    if writers:
        extra["HERALD_ACCEPT_WRITERS"] = writers
    env = herald_env(database_url, HERALD_ACCEPT_GROUP_COMMIT="true" if group_commit else "false",
                     HERALD_READ_CACHE_MS=read_cache_ms, RUST_LOG=log_level, **extra)
    seeded = seed(env)
    server = Server(env)
    sync_templates(server, seeded)
    return server, seeded, env


@contextlib.contextmanager
def empty_handler():
    """The HTTP baseline (an empty actix handler) served on a free port; yields its URL and its pid."""
    port = free_port()
    proc = subprocess.Popen([BASELINE, f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}/"
        wait_http(url)
        yield url, proc.pid
    finally:
        proc.terminate()
        proc.wait()


def paced(url, rate, keys=None, body=None, seconds=SECONDS, kept=None):
    """P2's generators: CLIENTS connections in all, offering `rate` per second together, latency-corrected
    (no coordinated omission); one generator per API key of `keys`, or ORGS of them without a key. With `kept`
    (a folder), each generator keeps every answered request in its own SQLite file there (`oha --db-url`)."""
    keys = keys if keys is not None else [None] * ORGS
    return [
        oha(url, "-z", f"{seconds}s", "-c", str(max(1, CLIENTS // ORGS)), "-q", str(rate / len(keys)),
            "--latency-correction", *(["--db-url", os.path.join(kept, f"{i}.db")] if kept else []), key=k,
            body=body)
        for i, k in enumerate(keys)
    ]


def windows(kept, status, split):
    """The requests `paced(..., kept=kept)` kept, answered `status`: per generator, the latencies (s) of those
    due before `split` seconds into its offer (the cold window) and of those due after (the steady one). A
    request's latency runs from when it was due, not from when it went out (latency correction)."""
    import sqlite3

    cold, steady = [], []
    for name in sorted(os.listdir(kept)):
        with contextlib.closing(sqlite3.connect(os.path.join(kept, name))) as db:
            rows = db.execute(
                "SELECT coalesce(start_latency_correction, start), end - coalesce(start_latency_correction, start) "
                "FROM oha WHERE status = ?", (status,)).fetchall()
        cold.append([latency for due, latency in rows if due < split])
        steady.append([latency for due, latency in rows if due >= split])
    return cold, steady


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else 0.0


def worst(per_generator, share):
    """The worst generator's percentile, in ms (conservative: each generator's own tail)."""
    return max(percentile(values, share) for values in per_generator) * 1000


def baseline_rps():
    with empty_handler() as (url, _):
        rates = []
        for _ in range(RUNS):
            r = collect([oha(url, "-z", f"{SECONDS}s", "-c", str(CLIENTS))])[0]
            rates.append(ok_count(r, 200) / r["summary"]["total"])
        return rates


def floor(rate):
    """P2's generators offering `rate` per second to the empty actix handler: the harness's own p99 (ms), and the
    handler's CPU per request (µs), the HTTP floor under Herald's CPU per accept at that rate (a request's
    read, answer and wake-ups, which the kernel charges to the server)."""
    with empty_handler() as (url, pid), tempfile.TemporaryDirectory() as kept:
        meter = CpuMeter(pid)
        results = collect(paced(url, rate, seconds=2 * SECONDS, kept=kept))
        cpu = us_per(meter.stop()["herald"], sum(ok_count(r, 200) for r in results))
        _, steady = windows(kept, 200, SECONDS)
        return worst(steady, 0.99), cpu


def main():
    resource.setrlimit(resource.RLIMIT_NOFILE, (8192, 8192))
    lines = []
    lines.append("## HTTP: P1 durable accepts, P2 latency, P5 footprint, and the HTTP baseline")
    lines.append("")
    lines.append(
        f"Command: `make bench` (`scripts/bench_http.py`). The release `herald serve --role api` process, "
        f"driven by `oha` ({ORGS} organizations on the enterprise plan, one `oha` each, {CLIENTS} connections "
        f"in all, {SECONDS} s per run, `POST /api/v1/messages/send-template`); each figure the median of {RUNS} "
        f"runs with min and max. The P1 configurations run side by side in each run, the same binary: "
        f"'before' with `HERALD_ACCEPT_GROUP_COMMIT=false HERALD_READ_CACHE_MS=0`, then group commit alone, then "
        f"group commit and the read cache (the defaults)."
    )
    lines.append("")

    lines.append("| figure | median | min | max |")
    lines.append("|---|---|---|---|")
    base = None
    if not P1_ONLY:
        log("baseline")
        base = baseline_rps()
        lines.append(f"| HTTP baseline: empty actix handler, requests/s ({CLIENTS} connections) | {fmt(base)} |")

    p1_pg = None
    if ADMIN_URL and shutil.which("pgbench"):
        db = PgDatabase(f"herald_bench_{os.getpid()}")
        try:
            rates = {label: [] for label, *_ in P1_CONFIGS}
            costs = {label: [] for label, *_ in P1_CONFIGS}
            pgb = []
            pgb_costs = []
            for run in range(RUNS):
                for label, group_commit, cache_ms, metrics, writers, log_level in P1_CONFIGS:
                    server, seeded, _ = p1_herald(db.url, group_commit, cache_ms, metrics, writers, log_level)
                    try:
                        rate = accepts_per_second(server, seeded, costs=costs[label])
                    finally:
                        server.stop()
                    rates[label].append(rate)
                    cost = costs[label][-1]
                    log(f"P1 postgres {label}, run {run}: {rate:.0f}/s, Herald {cost['herald']:.0f} µs and "
                        f"PostgreSQL {cost['pg']:.0f} µs of CPU per accept, machine {cost['idle']:.0f} % idle")
                    db.drop()
                    db = PgDatabase(db.name)
                # pgbench on the same schema (a migrated database with one organization).
                env = herald_env(db.url)
                seeded = seed(env)
                org_id, sender_id, _ = seeded[0]
                tps = pgbench_tps(db.url, org_id, sender_id, costs=pgb_costs)
                pgb.append(tps)
                cost = pgb_costs[-1]
                log(f"pgbench run {run}: {tps:.0f} tps, client {cost['client']:.0f} µs and PostgreSQL "
                    f"{cost['pg']:.0f} µs of CPU per transaction, machine {cost['idle']:.0f} % idle")
                db.drop()
                db = PgDatabase(db.name)
            medians = [statistics.median(rates[label]) for label, *_ in P1_CONFIGS]
            on = rates[P1_CONFIGS[DEFAULTS][0]]
            ratio = statistics.median(on) / statistics.median(pgb)
            p1_pg = statistics.median(on)
            lines.append(f"| P1 PostgreSQL: pgbench, equivalent transaction, tps ({CLIENTS} clients) | {fmt(pgb)} |")
            for label, *_ in P1_CONFIGS:
                lines.append(f"| P1 PostgreSQL: Herald accepts/s, {label} | {fmt(rates[label])} |")
            lines.append(f"| P1 PostgreSQL: Herald ÷ pgbench (target ≥ 1.5×) | {ratio:.2f}× | | |")
            verdict("P1 PostgreSQL, Herald ÷ pgbench", f"{ratio:.2f}×", "≥ 1.5×", ratio >= 1.5)
            col = lambda rows, key: [row[key] for row in rows]
            lines.append(f"| P1 PostgreSQL: pgbench client CPU per transaction, µs | {fmt(col(pgb_costs, 'client'))} |")
            lines.append(f"| P1 PostgreSQL: PostgreSQL CPU per pgbench transaction, µs | {fmt(col(pgb_costs, 'pg'))} |")
            lines.append(f"| P1 PostgreSQL: machine idle during pgbench, % | {fmt(col(pgb_costs, 'idle'))} |")
            lines.append(f"| P1 PostgreSQL: CPU steal (the host's) during pgbench, % | {fmt1(col(pgb_costs, 'steal'))} |")
            for label, *_ in P1_CONFIGS:
                lines.append(f"| P1 PostgreSQL: Herald CPU per accept, µs, {label} | {fmt(col(costs[label], 'herald'))} |")
                lines.append(f"| P1 PostgreSQL: PostgreSQL CPU per accept, µs, {label} | {fmt(col(costs[label], 'pg'))} |")
                lines.append(f"| P1 PostgreSQL: machine idle, %, {label} | {fmt(col(costs[label], 'idle'))} |")
            defaults = costs[P1_CONFIGS[DEFAULTS][0]]
            lines.append(f"| P1 PostgreSQL: CPU steal (the host's), %, the defaults | {fmt1(col(defaults, 'steal'))} |")
            pg_ratio = statistics.median(col(defaults, "pg")) / statistics.median(col(pgb_costs, "pg"))
            herald_us = statistics.median(col(defaults, "herald"))
            lines.append(f"| P1 PostgreSQL: PostgreSQL CPU per accept ÷ per pgbench transaction (target ≤ 1.0×) | "
                         f"{pg_ratio:.2f}× | | |")
            verdict("P1 PostgreSQL CPU per accept ÷ per pgbench transaction", f"{pg_ratio:.2f}×", "≤ 1.0×",
                    pg_ratio <= 1.0)
            verdict("P1 Herald CPU per accept", f"{herald_us:.0f} µs", "≤ 50 µs", herald_us <= 50)
            if not P1_ONLY:
                log("HTTP floor at P1's rate")
                floor_cpu = [floor(p1_pg)[1] for _ in range(RUNS)]
                lines.append(f"| P1 PostgreSQL: the empty handler's CPU per request at P1's rate (paced, {CLIENTS} "
                             f"connections), µs: the HTTP floor under Herald's | {fmt(floor_cpu)} |")
                lines.append(f"| P1 PostgreSQL: Herald CPU per accept above that floor, µs | "
                             f"{herald_us - statistics.median(floor_cpu):.0f} | | |")
            lines.append(
                f"| P1 PostgreSQL: 4 batches in flight ÷ one (the defaults) | "
                f"{medians[SEVERAL_WRITERS] / medians[DEFAULTS]:.2f}× | | |"
            )
            lines.append(
                f"| P1 PostgreSQL: group commit ÷ one transaction per accept (both uncached) | "
                f"{medians[1] / medians[0]:.2f}× | | |"
            )
            lines.append(
                f"| P1 PostgreSQL: read cache ÷ uncached reads (both group commit) | "
                f"{medians[DEFAULTS] / medians[1]:.2f}× | | |"
            )
            lines.append(
                f"| P1 PostgreSQL: metrics on ÷ metrics off (the defaults) | "
                f"{medians[METRICS_ON] / medians[DEFAULTS]:.3f}× | | |"
            )
            info = statistics.median(col(costs[P1_CONFIGS[LOG_INFO][0]], "herald"))
            lines.append(
                f"| P1 PostgreSQL: Herald CPU per accept, `info` ÷ `error` (the defaults) | {info / herald_us:.2f}× | | |"
            )
            if base:
                lines.append(
                    f"| P1 PostgreSQL: Herald ÷ HTTP baseline | {statistics.median(on) / statistics.median(base):.3f}× | | |"
                )

            if not P1_ONLY:
                # P2: a constant offered rate of half P1's peak, latency-corrected (no coordinated omission).
                # Each run offers it for twice SECONDS to one server without a pause: the requests due in the
                # first SECONDS are the cold start (new connections, empty caches; reported apart), those due
                # after are the steady state that the target is about, on connections already open.
                rate = max(ORGS, int(p1_pg / 2))
                p50, p99, p999, pooled_p99, got, p2_costs, cold_p99 = [], [], [], [], [], [], []
                # What the tail is made of, from the same runs: the share of sends whose handler (Herald's own
                # histogram, so the server runs with metrics on: no measurable cost, see P1) took over 10 ms;
                # the run-queue waits of Herald, PostgreSQL and the generators; the CPU pressure; and the same
                # generators at the same rate against the empty handler (the harness's own floor).
                slow, waits, pressure, floor_p99 = [], {"herald": [], "pg": [], "generators": []}, [], []
                # And how long the accept batches' transactions took (Herald's histogram): a stalled commit holds
                # every send of its batch and the ones queued behind it.
                slow_writes, stalled_writes = [], []

                for run in range(RUNS):
                    metrics = f"127.0.0.1:{free_port()}"
                    server, seeded, _ = p1_herald(db.url, True, metrics=metrics)
                    try:
                        with tempfile.TemporaryDirectory() as kept:
                            all_cpu = CpuMeter()
                            procs = paced(f"{server.base}/api/v1/messages/send-template", rate,
                                          keys=[key for _, _, key in seeded], body=SEND_BODY,
                                          seconds=2 * SECONDS, kept=kept)
                            time.sleep(SECONDS)
                            before = send_durations(f"http://{metrics}")
                            writes_before = accept_writes(f"http://{metrics}")
                            meter = CpuMeter(server.proc.pid, server.database)
                            waiting = WaitMeter(server.proc.pid, server.database, procs)
                            results = collect(procs)
                            run_waits, share = waiting.stop()
                            cpu = meter.stop()
                            # The generators can be measured only once they have ended: over the whole offer.
                            generators = all_cpu.stop()["children"]
                            after = send_durations(f"http://{metrics}")
                            writes_after = accept_writes(f"http://{metrics}")
                            cold, steady = windows(kept, 202, SECONDS)
                    finally:
                        server.stop()
                        db.drop()
                        db = PgDatabase(db.name)
                    accepted = sum(len(values) for values in steady)
                    p2_costs.append({"herald": us_per(cpu["herald"], accepted), "pg": us_per(cpu["pg"], accepted),
                                     "generators": us_per(generators, sum(ok_count(r, 202) for r in results)),
                                     "idle": cpu["idle"] * 100, "steal": cpu["steal"] * 100})
                    # Each generator's own percentiles; the worst of them is reported (conservative), and the
                    # p99 of every request pooled beside it.
                    p50.append(worst(steady, 0.5))
                    p99.append(worst(steady, 0.99))
                    p999.append(worst(steady, 0.999))
                    pooled_p99.append(percentile([v for values in steady for v in values], 0.99) * 1000)
                    cold_p99.append(worst(cold, 0.99))
                    got.append(accepted / SECONDS)
                    slow.append(over(before, after, "0.01")[0])
                    slow_writes.append(over(writes_before, writes_after, "0.025"))
                    stalled_writes.append(over(writes_before, writes_after, "0.1")[1])
                    for group, value in run_waits.items():
                        waits[group].append(value)
                    if share is not None:
                        pressure.append(share * 100)
                    floor_p99.append(floor(rate)[0])
                    log(f"P2 run {run}: p99 {p99[-1]:.1f} ms (all requests pooled {pooled_p99[-1]:.1f} ms; cold "
                        f"start {cold_p99[-1]:.1f} ms), handler over 10 ms {slow[-1]:.2f} %, accept batches over "
                        f"25 ms {slow_writes[-1][0]:.2f} % ({slow_writes[-1][1]:.0f}), over 100 ms "
                        f"{stalled_writes[-1]:.0f}, run-queue waits ms/s "
                        f"{run_waits}, CPU pressure {share}, steal {p2_costs[-1]['steal']:.1f} %, floor p99 "
                        f"{floor_p99[-1]:.1f} ms")
                med = lambda v: f"{statistics.median(v):.1f} ms | {min(v):.1f} ms | {max(v):.1f} ms"
                pct2 = lambda v: f"{statistics.median(v):.2f} % | {min(v):.2f} % | {max(v):.2f} %"
                lines.append(f"| P2 PostgreSQL: offered rate (50 % of P1), accepted/s | {fmt(got)} |")
                lines.append(f"| P2 PostgreSQL: p50 | {med(p50)} |")
                lines.append(f"| P2 PostgreSQL: p99 (target ≤ 10 ms) | {med(p99)} |")
                verdict("P2 p99 at 50 % of P1", f"{statistics.median(p99):.1f} ms", "≤ 10 ms", statistics.median(p99) <= 10)
                lines.append(f"| P2 PostgreSQL: p99 of every request pooled (not each generator's) | {med(pooled_p99)} |")
                lines.append(f"| P2 PostgreSQL: p99.9 | {med(p999)} |")
                lines.append(f"| P2 PostgreSQL: p99 of the first {SECONDS} s after the server starts (cold start) | {med(cold_p99)} |")
                lines.append(f"| P2 PostgreSQL: sends whose handler took over 10 ms (Herald's histogram) | {pct2(slow)} |")
                lines.append(f"| P2 PostgreSQL: accept batches whose transaction took over 25 ms (Herald's histogram) | "
                             f"{pct2([share for share, _ in slow_writes])} |")
                lines.append(f"| P2 PostgreSQL: accept batches whose transaction took over 100 ms, count | {fmt(stalled_writes)} |")
                lines.append(f"| P2: harness floor, p99 of the same generators at the same rate against the empty handler | {med(floor_p99)} |")
                lines.append(f"| P2 PostgreSQL: Herald's threads waiting for a CPU, ms per s | {fmt(waits['herald'])} |")
                lines.append(f"| P2 PostgreSQL: PostgreSQL's backends waiting for a CPU, ms per s | {fmt(waits['pg'])} |")
                lines.append(f"| P2 PostgreSQL: the generators waiting for a CPU, ms per s | {fmt(waits['generators'])} |")
                if pressure:
                    lines.append(f"| P2 PostgreSQL: CPU pressure, % of the time some task waited for a CPU | {fmt(pressure)} |")
                lines.append(f"| P2 PostgreSQL: Herald CPU per accept, µs | {fmt(col(p2_costs, 'herald'))} |")
                lines.append(f"| P2 PostgreSQL: PostgreSQL CPU per accept, µs | {fmt(col(p2_costs, 'pg'))} |")
                lines.append(f"| P2 PostgreSQL: the generators' CPU per accept, µs | {fmt(col(p2_costs, 'generators'))} |")
                lines.append(f"| P2 PostgreSQL: machine idle, % | {fmt(col(p2_costs, 'idle'))} |")
                lines.append(f"| P2 PostgreSQL: CPU steal (the host's), % | {fmt1(col(p2_costs, 'steal'))} |")
                each = ", ".join(f"{p:.1f} ms ({c['steal']:.1f} %)" for p, c in zip(p99, p2_costs))
                lines.append(f"| P2 PostgreSQL: each run's p99 (its CPU steal) | {each} | | |")

                # P5: RSS of the whole process (API and workers) idle, then holding 1,000 keep-alive connections.
                idle, busy = [], []
                for run in range(RUNS):
                    env = herald_env(db.url)
                    seed(env)
                    server = Server(env, role="all")
                    try:
                        time.sleep(2)
                        idle.append(server.rss_kib() / 1024)
                        proc = oha(f"{server.base}/healthz", "-z", f"{SECONDS}s", "-c", "1000", "-q", "500")
                        peak = 0
                        while proc.poll() is None:
                            peak = max(peak, server.rss_kib())
                            time.sleep(0.2)
                        proc.communicate()
                        busy.append(peak / 1024)
                    finally:
                        server.stop()
                        db.drop()
                        db = PgDatabase(db.name)
                lines.append(f"| P5 RSS idle, `herald serve` (API and workers) on PostgreSQL, MiB | {fmt(idle)} |")
                lines.append(f"| P5 RSS peak with 1,000 open keep-alive connections, MiB (target ≤ 150) | {fmt(busy)} |")
                verdict("P5 RSS with 1,000 connections", f"{statistics.median(busy):.0f} MiB", "≤ 150 MiB",
                        statistics.median(busy) <= 150)
        finally:
            db.drop()

    if not P1_ONLY:
        log("P1 sqlite")
        rates = {label: [] for label, *_ in P1_CONFIGS}
        for run in range(RUNS):
            for label, group_commit, cache_ms, metrics, writers, log_level in P1_CONFIGS:
                with tempfile.TemporaryDirectory() as data:
                    server, seeded, _ = p1_herald(f"sqlite://{data}/herald.db", group_commit, cache_ms, metrics,
                                                  writers, log_level)
                    try:
                        rate = accepts_per_second(server, seeded)
                    finally:
                        server.stop()
                rates[label].append(rate)
                log(f"P1 sqlite {label}, run {run}: {rate:.0f}/s")
        medians = [statistics.median(rates[label]) for label, *_ in P1_CONFIGS]
        for label, *_ in P1_CONFIGS:
            lines.append(f"| P1 SQLite: Herald accepts/s, {label} | {fmt(rates[label])} |")
        verdict("P1 SQLite accepts/s (target ≥ 2,000)", f"{medians[DEFAULTS]:,.0f}/s", "≥ 2,000/s",
                medians[DEFAULTS] >= 2000)
        lines.append(
            f"| P1 SQLite: group commit ÷ one transaction per accept (both uncached) | {medians[1] / medians[0]:.2f}× | | |"
        )
        lines.append(f"| P1 SQLite: read cache ÷ uncached reads (both group commit) | {medians[DEFAULTS] / medians[1]:.2f}× | | |")
        lines.append(f"| P1 SQLite: metrics on ÷ metrics off (the defaults) | {medians[METRICS_ON] / medians[DEFAULTS]:.3f}× | | |")
        lines.append(f"| P1 SQLite: `info` ÷ `error` (the defaults) | {medians[LOG_INFO] / medians[DEFAULTS]:.3f}× | | |")
    lines.append("")
    lines.append("Commands run (each run):")
    lines.append("")
    lines.append(f"- baseline: `oha --no-tui -z {SECONDS}s -c {CLIENTS} http://127.0.0.1:PORT/` against "
                 "`target/release/examples/http_baseline 127.0.0.1:PORT`")
    lines.append(f"- P1: {ORGS}× `oha --no-tui -z {SECONDS}s -c {CLIENTS // ORGS} -m POST -T application/json "
                 f"-H 'Authorization: Bearer KEY' -d '{SEND_BODY}' http://127.0.0.1:PORT/api/v1/messages/send-template` "
                 "at once, one per organization, against `herald serve --role api` on a fresh database")
    lines.append(f"- pgbench: `pgbench -n -c {CLIENTS} -j 2 -T {SECONDS} -M prepared -f accept.sql` where accept.sql is "
                 "`BEGIN; INSERT INTO messages …; INSERT INTO message_events …; INSERT INTO outbox …; COMMIT;` "
                 "(see `pgbench_tps` in scripts/bench_http.py), on a freshly migrated database")
    lines.append(f"- the HTTP floor at P1's rate: P2's generators (below) offering P1's median rate (PostgreSQL, the "
                 f"defaults) to `http_baseline`, its CPU from /proc over its {2 * SECONDS} s; Herald's CPU per accept "
                 "above it is what Herald itself adds to the request's read, answer and wake-ups")
    lines.append(f"- P2: as P1 with `-q RATE/{ORGS} --latency-correction` per generator, RATE = half of P1's median; "
                 f"offered for {2 * SECONDS} s per run to one server, without a pause, each generator keeping every "
                 "request (`--db-url`): the requests due in the first "
                 f"{SECONDS} s from its start are the cold start (reported apart), those due after are the steady state, on "
                 "connections already open; the worst generator's percentile is reported, and the p99 of every request "
                 "pooled beside it; the server runs with "
                 "`HERALD_METRICS_LISTEN` set, and its `herald_http_request_duration_seconds` buckets for send-template and "
                 "`herald_group_commit_write_seconds` buckets for accepts are read before and after the measured window; run-queue waits are the second field of "
                 "`/proc/PID/task/*/schedstat` summed over each process's threads (Herald, the bench database's "
                 "backends, the generators), CPU pressure is `/proc/pressure/cpu`'s `some total`; the floor is the same "
                 "generators at the same rate against `http_baseline`, right after each run, its steady window read the same way; "
                 "CPU steal (here and in P1) is `/proc/stat`'s steal share of the machine's time over the measured window, "
                 "the time the host ran something else while this machine was ready to run")
    lines.append(f"- P5: `herald serve --role all`, VmRSS from /proc after 2 s idle, then the peak while "
                 f"`oha --no-tui -z {SECONDS}s -c 1000 -q 500 http://127.0.0.1:PORT/healthz` holds 1,000 connections")
    lines.append("")
    lines.append("Targets measured here (this run's medians):")
    lines.append("")
    lines.append("| target | measured | wanted | |")
    lines.append("|---|---|---|---|")
    lines.extend(verdicts)
    print("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
