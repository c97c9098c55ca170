#!/usr/bin/env bash
# P6: seeds a fresh PostgreSQL database with P6_MESSAGES messages (default 10 million) and their
# rows (scripts/p6_seed.sql), and a second one with P6_SMALL_MESSAGES (default 10,000) as the baseline; prints a
# Markdown section with the EXPLAIN (ANALYZE, BUFFERS) verdict of every hot query on both
# (scripts/p6_explain.sql: the large plan's scans and both execution times), then the load figures on the
# large one beside an empty database (scripts/bench_p6_load.py: P1, lookups and log pages). Run by
# `make bench` only with BENCH_P6=1 (seeding 10 million messages takes tens of minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
admin="${HERALD_TEST_DATABASE_URL:?HERALD_TEST_DATABASE_URL must name the PostgreSQL server}"
name="herald_bench_p6_$$"
small="herald_bench_p6_small_$$"
url="${admin%/*}/$name"
small_url="${admin%/*}/$small"
oha="${OHA:-$PWD/.tools/bin/oha}"
# Everything the load part needs, checked before tens of minutes of seeding (the trap drops the seeded
# database on any failure).
for tool in target/release/herald "$oha" psql; do
  command -v "$tool" >/dev/null || { echo "bench_p6.sh: $tool is missing (make bench builds and installs it)" >&2; exit 1; }
done
export OHA="$oha"
messages="${P6_MESSAGES:-10000000}"
small_messages="${P6_SMALL_MESSAGES:-10000}"
trap 'psql -q "$admin" -c "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" -c "DROP DATABASE IF EXISTS \"$small\" WITH (FORCE)"' EXIT
seed() { # database, url, messages
  psql -q "$admin" -c "DROP DATABASE IF EXISTS \"$1\" WITH (FORCE)" -c "CREATE DATABASE \"$1\""
  HERALD_DATABASE_URL="$2" target/release/herald migrate >/dev/null 2>&1
  psql -q -v messages="$3" -v orgs=100 -v days=90 -f scripts/p6_seed.sql "$2" >/dev/null
}
# One line per query: its name, the plan's scans, its execution times (tab-separated).
explain() {
  psql -f scripts/p6_explain.sql "$1" 2>&1 | awk '
    /^== / { if (q != "") printf "%s\t%s\t%s\n", q, nodes, t; q = substr($0, 4); nodes = ""; t = ""; next }
    /Execution Time/ { v = $3 " ms"; t = (t == "" ? v : t ", " v); next }
    /(Index|Seq|Bitmap)[A-Za-z ]*Scan/ {
      line = $0; sub(/^ *(-> *)?/, "", line); sub(/ *\(actual.*$/, "", line); sub(/ *\(never executed\)/, "", line)
      nodes = (nodes == "" ? line : nodes "; " line)
    }
    END { if (q != "") printf "%s\t%s\t%s\n", q, nodes, t }
  '
}
seed "$small" "$small_url" "$small_messages"
started=$(date +%s)
seed "$name" "$url" "$messages"
seeded=$(( $(date +%s) - started ))
large_plans=$(mktemp)
small_plans=$(mktemp)
explain "$url" > "$large_plans"
explain "$small_url" > "$small_plans"
echo "## P6: hot queries on $messages stored messages"
echo
echo "Command: \`BENCH_P6=1 make bench\` (\`scripts/bench_p6.sh\`): \`scripts/p6_seed.sql\` seeded $messages messages over"
echo "100 organizations and 90 days, with 3 status events, 1 outbox job, 2 customer events and 1 webhook delivery"
echo "each, and one running broadcast of 10,000 recipients (1,000 released, 9,000 held), in ${seeded} s; database size"
echo "$(psql -tA "$url" -c 'SELECT pg_size_pretty(pg_database_size(current_database()))'). Then \`scripts/p6_explain.sql\` on it and on a"
echo "database seeded the same way with $small_messages messages (the baseline)."
echo
echo "| query | scans on $messages messages (plan nodes) | time, $small_messages | time, $messages |"
echo "|---|---|---|---|"
awk -F'\t' 'NR == FNR { small[FNR] = $3; next } { printf "| %s | %s | %s | %s |\n", $1, $2, small[FNR], $3 }' \
  "$small_plans" "$large_plans"
rm -f "$large_plans" "$small_plans"
echo
echo "Under load on the $messages-message database, beside an empty one in the same run (\`scripts/bench_p6_load.py\`):"
echo "P1 as in the HTTP section, alternating the two databases run by run; then reads offered at a constant rate"
echo "(\`oha --urls-from-file -c 4 -q ${HERALD_BENCH_P6_READ_RATE:-200} --latency-correction\`), one API process each."
echo "Last, retention beside sends: every plan's retention set to 30 days (two thirds of the seeded messages past"
echo "it), P1 on the seeded database alone and with \`herald admin retention sweep\` running beside it, alternated"
echo "run by run (PostgreSQL's CPU then includes the sweep's): on the defaults (1,000 messages per transaction, at"
echo "most 20 % of its time inside them), and allowed all of its time (\`HERALD_RETENTION_BUSY_PERCENT=100\`: only"
echo "the 200 ms pause between transactions) as the baseline."
echo
echo "| figure | median | min | max |"
echo "|---|---|---|---|"
scripts/bench_p6_load.py "$url"
echo
