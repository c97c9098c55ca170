#!/usr/bin/env python3
"""P1 before/after: two `herald` binaries (a build before a change and one after it) alternated run by run on the
same machine at the same moment, PostgreSQL (when HERALD_TEST_DATABASE_URL is set) and SQLite, each run on a
fresh database with the defaults, as scripts/bench_http.py measures P1. Prints each run and the medians with
Herald's and PostgreSQL's CPU per accept and the machine's idle share.

    scripts/bench_ab.py /path/to/herald-before target/release/herald   # AB_RUNS=4 by default
"""

import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_http as h  # noqa: E402


def main():
    bins = {"before": sys.argv[1], "after": sys.argv[2]}
    runs = int(os.environ.get("AB_RUNS", "4"))
    stores = (["postgres"] if h.ADMIN_URL else []) + ["sqlite"]
    for store in stores:
        rates = {label: [] for label in bins}
        costs = {label: [] for label in bins}
        for run in range(runs):
            for label, path in bins.items():
                h.HERALD = path
                if store == "postgres":
                    db = h.PgDatabase(f"herald_ab_{os.getpid()}")
                    url = db.url
                else:
                    tmp = tempfile.TemporaryDirectory()
                    url = f"sqlite://{tmp.name}/herald.db"
                server, seeded, _ = h.p1_herald(url, True, 500)
                try:
                    rates[label].append(h.accepts_per_second(server, seeded, costs=costs[label]))
                finally:
                    server.stop()
                    if store == "postgres":
                        db.drop()
                    else:
                        tmp.cleanup()
                c = costs[label][-1]
                print(f"{store} {label} run {run}: {rates[label][-1]:.0f}/s, Herald {c['herald']:.0f} µs and "
                      f"PostgreSQL {c['pg']:.0f} µs of CPU per accept, machine {c['idle']:.0f} % idle", flush=True)
        for label in bins:
            med = lambda key: statistics.median(c[key] for c in costs[label])  # noqa: E731
            print(f"{store} {label}: median {statistics.median(rates[label]):.0f}/s (min {min(rates[label]):.0f}, "
                  f"max {max(rates[label]):.0f}), Herald {med('herald'):.0f} µs, PostgreSQL {med('pg'):.0f} µs, "
                  f"idle {med('idle'):.0f} %", flush=True)
        ratio = statistics.median(rates["after"]) / statistics.median(rates["before"])
        print(f"{store} after ÷ before: {ratio:.2f}×", flush=True)


if __name__ == "__main__":
    main()
