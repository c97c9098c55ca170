#!/usr/bin/env bash
# Runs the benchmarks and writes docs/benchmarks.md, a short report: the machine, what each figure is held
# against, each command and figure.
# Installs what it needs: `oha` (crates.io, into ./.tools) and `pgbench` (Debian's postgresql-client).
# `scripts/bench.sh --preface` prints only the report's opening (machine, targets, how to reproduce) and runs
# nothing. The report is written whole each time; the measurement history (docs/benchmarks-history.md) is
# written by hand and never touched here.
set -euo pipefail
cd "$(dirname "$0")/.."

# The report's opening: when and where it was measured, what each figure is held against, how to run it again.
preface() {
  local pg oha_version
  pg=$(psql -tA "${HERALD_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}" -c 'SHOW server_version' 2>/dev/null || echo 'absent')
  oha_version=$("${OHA:-.tools/bin/oha}" --version 2>/dev/null || echo "oha absent")
  cat <<EOF_PREFACE
# Herald benchmarks

Written by \`make bench\` on $(date -u +%Y-%m-%dT%H:%MZ), build $(git rev-parse --short HEAD 2>/dev/null || echo unknown).
Figures drift on shared machines: compare ratios measured in the same run, not absolute numbers across runs.

Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),
$(free -g | awk '/Mem:/ {print $2}') GiB memory, $(uname -sr), $(rustc --version), PostgreSQL
$pg, load generator $oha_version.

## What each figure is held against

Every rate and cost is measured beside an anchor run in the same session on the same machine, and read as a
ratio to it. The sections below give each figure with its anchor, the ratio, and the exact commands.

| target | measured | anchor | wanted |
|---|---|---|---|
| P1 PostgreSQL | durable accepts/s, 8 organizations, 32 connections | \`pgbench\` running the accept's three inserts in one transaction | ≥ 1.5× pgbench's tps; PostgreSQL CPU per accept ≤ 1.0× per pgbench transaction; Herald CPU per accept ≤ 50 µs |
| P1 SQLite | durable accepts/s, the same load | none | ≥ 2,000/s |
| P2 | p99 latency at a constant 50 % of P1's rate | the same generators against an empty actix handler | ≤ 10 ms |
| P3 | dispatch (accepted → submitted, and → delivered) over 1, 2 and 8 senders | the network stand-in's 1,000 messages/s per sender; the reference build f7c0596 ([benchmarks-history.md](benchmarks-history.md)) | Herald CPU per dispatched message ≤ 0.5× the reference's; 8 senders' aggregate ≥ 2× the reference's |
| P4 | customer webhook deliveries/s (a drained backlog), latency at half that rate | the local receiver driven alone | ≥ 3,000/s; p99 ≤ 50 ms |
| P5 | resident memory idle and with 1,000 open connections | none | ≤ 150 MiB |
| P6 | hot queries' plans and P1 on 10 million stored messages | the same queries on 10,000; P1 on an empty database | no scan growing with the table; P1 seeded ≥ 0.90× empty; reads' p99 ≤ 20 ms |
| Broadcasts | one request of 10,000 recipients, then its dispatch | the same count as single sends; the sender's throughput | faster than single sends; dispatch at the sender's throughput |

## How to reproduce

- Everything but P6: \`make bench\` (\`scripts/bench.sh\`: release builds, \`oha\` into \`./.tools\`, \`pgbench\` from
  postgresql-client; PostgreSQL figures need \`HERALD_TEST_DATABASE_URL\` or a server on 127.0.0.1:5432). With P6:
  \`BENCH_P6=1 make bench\` (seeding 10 million messages takes about 20 minutes on 2 cores and 35 GB).
- One section alone, after \`make bench\` built the tools: \`scripts/bench_http.py\` (P1, P2, P5, the HTTP
  baseline), \`scripts/bench_broadcast.py\`, \`scripts/bench_dispatch.py\` (P3, processes apart),
  \`cargo bench -p herald-tests --bench dispatch --bench webhooks\` (P3 in one process, the callback backlog,
  P4; \`HERALD_BENCH_REPORT=FILE\` appends their sections to FILE), \`scripts/bench_p6.sh\` (P6). Each prints
  its section; \`scripts/bench_ab.py\` runs P1 on two builds alternated.

What was tried, kept or dropped, and the figures behind each decision: [benchmarks-history.md](benchmarks-history.md).

EOF_PREFACE
}

if [ "${1:-}" = --preface ]; then
  preface
  exit 0
fi
if [ -z "${HERALD_TEST_DATABASE_URL:-}" ] && (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; then
  export HERALD_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:5432/test"
fi

# The load generator, pinned so figures stay comparable across runs.
OHA_VERSION=1.16.0
if ! .tools/bin/oha --version 2>/dev/null | grep -q "$OHA_VERSION"; then
  cargo install oha --version "$OHA_VERSION" --locked --root .tools
fi
export OHA="$PWD/.tools/bin/oha"
if ! command -v pgbench >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq postgresql-client
  else
    sudo apt-get update -qq && sudo apt-get install -y -qq postgresql-client
  fi
fi

cargo build --release -p herald-app --bin herald
cargo build --release -p herald-tests --example http_baseline

report=docs/benchmarks.md
tmp=$(mktemp)
preface > "$tmp"
scripts/bench_http.py >> "$tmp"
scripts/bench_broadcast.py >> "$tmp"
scripts/bench_dispatch.py >> "$tmp"
HERALD_BENCH_REPORT="$tmp" RUST_LOG=warn cargo bench -p herald-tests --bench dispatch --bench webhooks
# P6: 10 million stored messages and the plans of the hot queries on them; minutes of seeding,
# so only when asked.
if [ "${BENCH_P6:-0}" = 1 ] && [ -n "${HERALD_TEST_DATABASE_URL:-}" ]; then
  scripts/bench_p6.sh >> "$tmp"
fi
mv "$tmp" "$report"
echo "wrote $report ($(wc -l < "$report") lines)"
