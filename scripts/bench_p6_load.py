#!/usr/bin/env python3
"""P6 under load: the figures that must stay flat as data grows, on the PostgreSQL database that
scripts/bench_p6.sh seeded (its URL is the argument) beside a fresh empty database in the same run:

- P1, durable accepts per second, measured as scripts/bench_http.py measures it (8 organizations, 32
  connections), alternating the empty database and the seeded one run by run;
- a message lookup and the message log's first and next page at a constant offered rate, latency-corrected
  (no coordinated omission), p99 and p50, each database's own messages (on the seeded one, those of one of its
  organizations with 100,000 messages);
- the retention sweep beside sends: the seeded plans' retention lowered to RETENTION_DAYS (two thirds of the
  seeded messages fall past it), P1 on the seeded database alternately alone and with `herald admin retention
  sweep` running beside it (SWEEPS: on the defaults, and allowed all of its time as the baseline), and what
  the sweep removed per second meanwhile.

Prints Markdown table rows (the section's header is bench_p6.sh's).
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_http as h  # noqa: E402

# Reads are offered at this rate (requests/s over 4 connections) for h.SECONDS each: a steady API load,
# well under the machine's capacity, so the p99 shows the query's cost and not a queue.
READ_RATE = int(os.environ.get("HERALD_BENCH_P6_READ_RATE", "200"))
# The seed spreads messages over 90 days: with 30, two thirds of them are past their retention.
RETENTION_DAYS = 30
# The per-key read limit would answer 429 long before that.
READS_UNLIMITED = {"HERALD_READ_RATE_PER_SECOND": "1000000", "HERALD_READ_BURST": "1000000"}


def psql_value(url, sql):
    out = subprocess.run(["psql", "-tA", "-v", "ON_ERROR_STOP=1", url, "-c", sql], check=True,
                         capture_output=True, text=True)
    return out.stdout.strip()


def get_json(url, key):
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {key}"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def reads(server, key, ids):
    """{figure: (p50 ms, p99 ms, answered 200, requests)} of the three reads."""
    first = get_json(f"{server.base}/api/v1/messages?limit=50", key)
    cursor = first.get("next_cursor")
    url_sets = {
        "a message lookup (`GET /api/v1/messages/{id}`, 200 ids drawn at random)":
            [f"{server.base}/api/v1/messages/{i}" for i in ids],
        "the log's first page (`GET /api/v1/messages?limit=50`)": [f"{server.base}/api/v1/messages?limit=50"],
    }
    if cursor:
        url_sets["the log's next page (`?limit=50&cursor=…`)"] = [
            f"{server.base}/api/v1/messages?limit=50&cursor={urllib.parse.quote(cursor)}"]
    figures = {}
    for name, urls in url_sets.items():
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as listing:
            listing.write("\n".join(urls) + "\n")
            listing.flush()
            result = h.collect([h.oha(listing.name, "--urls-from-file", "-z", f"{h.SECONDS}s", "-c", "4", "-q",
                                      str(READ_RATE), "--latency-correction", key=key)])[0]
        pct = result["latencyPercentiles"]
        total = sum(int(v) for v in result.get("statusCodeDistribution", {}).values())
        figures[name] = (pct["p50"] * 1000, pct["p99"] * 1000, h.ok_count(result, 200), total)
    return figures


# The sweeps run beside sends, each alternated with P1 alone: the defaults (at most 20 % of the sweep's time
# inside its transactions), and the sweep allowed all of its time (only the 200 ms pause between transactions,
# the pacing before `retention_busy_percent`), the baseline the default is measured against.
SWEEPS = {"sweeping": {}, "sweeping, busy 100 %": {"HERALD_RETENTION_BUSY_PERCENT": "100"}}


def retention_beside_sends(url, env, orgs):
    """P1 on the seeded database alone and with a retention sweep beside it (each of SWEEPS), alternated run
    by run: {"alone": [rate], sweep: [rate], "removed": {sweep: [(messages/s, rows/s)]}, "costs": {label:
    [cost]}}."""
    psql_value(url, f"UPDATE plans SET retention_days = {RETENTION_DAYS}")
    labels = ["alone", *SWEEPS]
    result = {label: [] for label in labels}
    result["removed"] = {label: [] for label in SWEEPS}
    result["costs"] = {label: [] for label in labels}
    for run in range(h.RUNS):
        for label in labels:
            server = h.Server(env)
            sweep = None
            try:
                h.sync_templates(server, orgs)
                if label in SWEEPS:
                    # Bounded a little past the load, so it sweeps the whole run and ends on its own.
                    sweep = subprocess.Popen([h.HERALD, "admin", "--json", "retention", "sweep", "--seconds",
                                              str(h.SECONDS + 2)], env={**env, **SWEEPS[label]},
                                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
                result[label].append(h.accepts_per_second(server, orgs, costs=result["costs"][label]))
                if sweep:
                    report = json.loads(sweep.communicate(timeout=120)[0])
                    if report["ended"] != "stopped":
                        h.log(f"warning: the sweep ended {report['ended']} before the load did")
                    result["removed"][label].append((report["removed"]["messages"] / report["seconds"],
                                                     report["rows"] / report["seconds"]))
            finally:
                if sweep and sweep.poll() is None:
                    sweep.kill()
                server.stop()
            h.log(f"P6 retention, {label}, run {run}: {result[label][-1]:.0f}/s")
    return result


def main():
    seeded_url = sys.argv[1]
    empty = h.PgDatabase(f"herald_bench_p6_empty_{os.getpid()}")
    try:
        databases = {"empty": empty.url, "seeded": seeded_url}
        envs = {label: h.herald_env(url, **READS_UNLIMITED) for label, url in databases.items()}
        orgs = {label: h.seed(env) for label, env in envs.items()}
        rates = {label: [] for label in databases}
        costs = {label: [] for label in databases}
        for run in range(h.RUNS):
            for label in databases:
                server = h.Server(envs[label])
                try:
                    h.sync_templates(server, orgs[label])
                    rates[label].append(h.accepts_per_second(server, orgs[label], costs=costs[label]))
                finally:
                    server.stop()
                h.log(f"P6 P1 {label}, run {run}: {rates[label][-1]:.0f}/s")

        # Whose messages are read: on the empty database, those the first bench organization accepted above;
        # on the seeded one, an organization of the seed's (100,000 messages over 90 days).
        read_as = {"empty": (orgs["empty"][0][0], orgs["empty"][0][2])}
        p6_org = psql_value(seeded_url, "SELECT id FROM organizations WHERE name = 'P6 1'")
        read_as["seeded"] = (p6_org, h.admin(envs["seeded"], "key", "create", "--org", p6_org)["key"])
        figures = {}
        for label in databases:
            org, key = read_as[label]
            ids = psql_value(databases[label], f"SELECT string_agg(id, ',') FROM (SELECT id FROM messages "
                                               f"WHERE organization_id = '{org}' ORDER BY random() LIMIT 200) AS m")
            server = h.Server(envs[label])
            try:
                figures[label] = reads(server, key, ids.split(","))
            finally:
                server.stop()
        sweep = retention_beside_sends(seeded_url, envs["seeded"], orgs["seeded"])
    finally:
        empty.drop()

    lines = []
    lines.append(f"| P1: accepts/s, empty database (median, min, max of {h.RUNS}) | {h.fmt(rates['empty'])} |")
    lines.append(f"| P1: accepts/s, seeded database | {h.fmt(rates['seeded'])} |")
    ratio = statistics.median(rates["seeded"]) / statistics.median(rates["empty"])
    lines.append(f"| P1: seeded ÷ empty (target ≥ 0.90×) | {ratio:.2f}× | | |")
    for label in databases:
        col = lambda key: [c[key] for c in costs[label]]  # noqa: E731
        lines.append(f"| P1: Herald / PostgreSQL CPU per accept, µs, {label} | "
                     f"{statistics.median(col('herald')):.0f} / {statistics.median(col('pg')):.0f} | | |")
        lines.append(f"| P1: machine idle, %, {label} | {h.fmt(col('idle'))} |")
    for name in figures["seeded"]:
        for label in databases:
            if name not in figures[label]:
                continue
            p50, p99, ok, total = figures[label][name]
            lines.append(f"| {name}, {label}: p50 / p99, ms ({ok:,} of {total:,} answered 200; target p99 ≤ 20 ms) | "
                         f"{p50:.1f} / {p99:.1f} | | |")
    lines.append(f"| retention beside sends: P1 accepts/s on the seeded database, alone | {h.fmt(sweep['alone'])} |")
    for label in SWEEPS:
        lines.append(f"| retention beside sends: P1 accepts/s, {label} | {h.fmt(sweep[label])} |")
        ratio = statistics.median(sweep[label]) / statistics.median(sweep["alone"])
        lines.append(f"| retention beside sends: {label} ÷ alone | {ratio:.2f}× | | |")
    for label in ("alone", *SWEEPS):
        col = lambda key: [c[key] for c in sweep["costs"][label]]  # noqa: E731
        lines.append(f"| retention beside sends: Herald / PostgreSQL CPU per accept, µs, {label} | "
                     f"{statistics.median(col('herald')):.0f} / {statistics.median(col('pg')):.0f} | | |")
        lines.append(f"| retention beside sends: machine idle, %, {label} | {h.fmt(col('idle'))} |")
    for label in SWEEPS:
        removed = sweep["removed"][label]
        lines.append(f"| retention beside sends: messages removed per second, {label} | "
                     f"{h.fmt([m for m, _ in removed])} |")
        lines.append(f"| retention beside sends: rows removed per second (every table), {label} | "
                     f"{h.fmt([r for _, r in removed])} |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
