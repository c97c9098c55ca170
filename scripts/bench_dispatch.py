#!/usr/bin/env python3
"""P3 dispatch, process by process: the network stand-in in a process of its own, so Herald's CPU
per dispatched message is measured apart from the simulator's.

Three release processes, as a deployment runs them against the real network:
- `herald simulator` (the Cloud API stand-in: 1,000 messages/s per sender, status callbacks `sent` and
  `delivered` 20–200 ms apart, signed, to Herald's `/webhooks/whatsapp`);
- `herald serve --role api` with `HERALD_NETWORK=cloud` pointed at it (accepts the sends, receives and applies
  the callbacks);
- `herald serve --role worker` (dispatch), started only once every message is queued.

For 1, 2 and 8 senders (one organization each), PER_SENDER messages per sender are accepted over HTTP first;
then the worker starts and the run lasts until every message is `delivered`. Figures: the dispatch rate
(worker start → no message left `accepted`), the rate to `delivered`, and over that whole window the CPU
seconds per message of Herald's two processes, of the simulator and of the database's PostgreSQL backends,
with the machine's idle share. On a fresh SQLite file, and on a fresh PostgreSQL database when
HERALD_TEST_DATABASE_URL is set. Prints a Markdown section; HERALD_BIN picks the binary (an A/B of two builds).
"""

import http.client
import json
import os
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_http as h  # noqa: E402

PER_SENDER = int(os.environ.get("HERALD_BENCH_DISPATCH_PER_SENDER", "3000"))
SENDERS = [int(s) for s in os.environ.get("HERALD_BENCH_DISPATCH_SENDERS", "1,2,8").split(",")]
RUNS = int(os.environ.get("HERALD_BENCH_DISPATCH_RUNS", "1"))
APP_SECRET = "bench-app-secret"
TOKEN = "bench-token"
# The simulator's business numbers: its two seeded ones, then its extra ones (`--extra-senders`).
NUMBERS = [("+15550001111", "1000000001"), ("+15550002222", "1000000002")] + [
    (f"+1555000{3001 + i}", str(1000000003 + i)) for i in range(6)]


def get_json(url, key):
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def queue(port, key, sender_index, count):
    """Sends `count` templates over keep-alive connections, each to a recipient of its own (numbers ending in
    0: the simulator's steering endings …9995–…9999 would fail some on purpose). Answers the 202s."""
    accepted = [0]
    lock = threading.Lock()

    def worker(part, parts):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        done = 0
        for i in range(part, count, parts):
            body = json.dumps({"to": f"+1556{sender_index:02d}{i * 10:06d}",
                               "template": {"name": "hello_world", "language": "en_US"}})
            while True:
                conn.request("POST", "/api/v1/messages/send-template", body=body, headers={
                    "Authorization": f"Bearer {key}", "Content-Type": "application/json"})
                r = conn.getresponse()
                r.read()
                if r.status == 429:  # the plan's rate: a policy, wait for it
                    time.sleep(0.05)
                    continue
                if r.status == 202:
                    done += 1
                break
        with lock:
            accepted[0] += done

    threads = [threading.Thread(target=worker, args=(p, 4)) for p in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return accepted[0]


def left(base, keys, statuses):
    """Whether any organization still has a message in one of `statuses`."""
    for key in keys:
        for status in statuses:
            if get_json(f"{base}/api/v1/messages?status={status}&limit=1", key)["data"]:
                return True
    return False


def run(database_url, senders):
    """One run on a fresh store; answers the run's figures."""
    sim_port, api_port = h.free_port(), h.free_port()
    simulator = h.subprocess.Popen(
        [h.HERALD, "simulator", "--listen", f"127.0.0.1:{sim_port}", "--callback",
         f"http://127.0.0.1:{api_port}/webhooks/whatsapp", "--extra-senders", "6", "--throughput", "1000"],
        env=dict(os.environ, HERALD_APP_SECRET=APP_SECRET, HERALD_SIMULATOR_TOKEN=TOKEN, RUST_LOG="error"),
        stdout=h.subprocess.DEVNULL, stderr=h.subprocess.DEVNULL)
    processes = [simulator]
    try:
        h.wait_http(f"http://127.0.0.1:{sim_port}/simulator/control/sent")
        env = h.herald_env(database_url, HERALD_NETWORK="cloud",
                           HERALD_CLOUD_API_BASE_URL=f"http://127.0.0.1:{sim_port}/simulator",
                           HERALD_CLOUD_ACCESS_TOKEN=TOKEN, HERALD_APP_SECRET=APP_SECRET,
                           HERALD_READ_RATE_PER_SECOND=1000, HERALD_READ_BURST=1000)
        h.subprocess.run([h.HERALD, "migrate"], env=env, check=True, capture_output=True)
        keys = []
        for i in range(senders):
            org = h.admin(env, "org", "create", "--name", f"Dispatch {i}", "--plan", "enterprise")
            number, pnid = NUMBERS[i]
            h.admin(env, "sender", "add", "--org", org["id"], "--number", number, "--phone-number-id", pnid,
                    "--waba-id", "2000000001", "--default", "--throughput", "1000",
                    # Every organization has a number of the simulator's one business account, on purpose.
                    "--shared-waba")
            keys.append(h.admin(env, "key", "create", "--org", org["id"])["key"])
        api_env = dict(env, HERALD_LISTEN=f"127.0.0.1:{api_port}")
        api = h.subprocess.Popen([h.HERALD, "serve", "--role", "api"], env=api_env,
                                 stdout=h.subprocess.DEVNULL, stderr=h.subprocess.DEVNULL)
        processes.append(api)
        base = f"http://127.0.0.1:{api_port}"
        h.wait_http(f"{base}/healthz")
        for key in keys:
            h.post(f"{base}/api/v1/templates/sync", key)
        threads = []
        for i, key in enumerate(keys):
            threads.append(threading.Thread(target=queue, args=(api_port, key, i, PER_SENDER)))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        total = PER_SENDER * senders
        database = database_url.rsplit("/", 1)[1] if database_url.startswith("postgres") else None
        meter = h.CpuMeter(api.pid, database)
        sim_cpu, api_cpu = h.proc_cpu(simulator.pid), h.proc_cpu(api.pid)
        started = time.time()
        worker = h.subprocess.Popen([h.HERALD, "serve", "--role", "worker"], env=env,
                                    stdout=h.subprocess.DEVNULL, stderr=h.subprocess.DEVNULL)
        processes.append(worker)
        dispatched = None
        while True:
            time.sleep(0.25)
            if dispatched is None and not left(base, keys, ["accepted"]):
                dispatched = time.time() - started
            if dispatched is not None and not left(base, keys, ["accepted", "submitted", "sent"]):
                break
            if time.time() - started > 600:
                raise RuntimeError("dispatch did not finish in 600 s")
        elapsed = time.time() - started
        worker_cpu = h.proc_cpu(worker.pid)
        cpu = meter.stop()
        sim_cpu, api_cpu = h.proc_cpu(simulator.pid) - sim_cpu, h.proc_cpu(api.pid) - api_cpu
        failed = sum(len(get_json(f"{base}/api/v1/messages?status=failed&limit=100", k)["data"]) for k in keys)
        if failed:
            h.log(f"warning: {failed}+ messages failed")
        return {
            "dispatch": total / dispatched,
            "delivered": total / elapsed,
            "herald": (api_cpu + worker_cpu) * 1e6 / total,
            "api": api_cpu * 1e6 / total,
            "worker": worker_cpu * 1e6 / total,
            "simulator": sim_cpu * 1e6 / total,
            "pg": cpu["pg"] * 1e6 / total if database else None,
            "idle": cpu["idle"] * 100,
        }
    finally:
        for p in reversed(processes):
            p.terminate()
            try:
                p.wait(20)
            except h.subprocess.TimeoutExpired:
                p.kill()


def stores():
    wanted = os.environ.get("HERALD_BENCH_DISPATCH_STORES", "sqlite,postgres").split(",")
    if "sqlite" in wanted:
        with tempfile.TemporaryDirectory() as tmp:
            yield "sqlite", lambda i: f"sqlite://{tmp}/dispatch-{i}.db", None
    if h.ADMIN_URL and "postgres" in wanted:
        yield "postgres", None, h.PgDatabase


def main():
    print("## P3 dispatch, the simulator in its own process")
    print()
    print(f"Command: `make bench` (`scripts/bench_dispatch.py`). {PER_SENDER:,} messages per sender (one enterprise")
    print("organization each) accepted over HTTP first; then a `herald serve --role worker` process starts and the run")
    print("lasts until every message is `delivered`. The network is `herald simulator` in its own process (1,000")
    print("messages/s per sender, `sent` and `delivered` callbacks 20–200 ms apart), reached by `herald serve --role api`")
    print("with `HERALD_NETWORK=cloud`, which also receives and applies the callbacks. Dispatch: worker start → no")
    print("message left `accepted`. CPU per message over the whole window (µs): Herald = its API process (the")
    print(f"callbacks) + its worker process; PostgreSQL = the bench database's backends. Median of {RUNS} run(s).")
    print()
    print("| store | senders | dispatch, messages/s | to delivered, messages/s | Herald µs/message (api + worker) "
          "| simulator µs/message | PostgreSQL µs/message | idle |")
    print("|---|---|---|---|---|---|---|---|")
    sys.stdout.flush()
    n = 0
    for store, sqlite_url, pg in stores():
        for senders in SENDERS:
            results = []
            for _ in range(RUNS):
                n += 1
                if pg:
                    db = pg(f"herald_bench_dispatch_{os.getpid()}_{n}")
                    try:
                        results.append(run(db.url, senders))
                    finally:
                        db.drop()
                else:
                    results.append(run(sqlite_url(n), senders))
            r = sorted(results, key=lambda x: x["dispatch"])[len(results) // 2]
            pg_cell = f"{r['pg']:,.0f}" if r["pg"] is not None else "in Herald's process"
            print(f"| {store} | {senders} | {r['dispatch']:,.0f} | {r['delivered']:,.0f} | {r['herald']:,.0f} "
                  f"({r['api']:,.0f} + {r['worker']:,.0f}) | {r['simulator']:,.0f} | {pg_cell} | {r['idle']:.0f} % |")
            sys.stdout.flush()
    print()


if __name__ == "__main__":
    main()
