#!/usr/bin/env bash
# P6 (issue 18): seeds a fresh PostgreSQL database with P6_MESSAGES messages (default 10 million) and their
# rows (scripts/p6_seed.sql), then prints a Markdown section with the EXPLAIN (ANALYZE, BUFFERS) verdict of
# every hot query on that data (scripts/p6_explain.sql): the plan's scans and its execution time. Run by
# `make bench` only with BENCH_P6=1 (seeding 10 million messages takes tens of minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
admin="${HERALD_TEST_DATABASE_URL:?HERALD_TEST_DATABASE_URL must name the PostgreSQL server}"
name="herald_bench_p6_$$"
url="${admin%/*}/$name"
messages="${P6_MESSAGES:-10000000}"
psql -q "$admin" -c "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)" -c "CREATE DATABASE \"$name\""
trap 'psql -q "$admin" -c "DROP DATABASE IF EXISTS \"$name\" WITH (FORCE)"' EXIT
HERALD_DATABASE_URL="$url" target/release/herald migrate >/dev/null 2>&1
started=$(date +%s)
psql -q -v messages="$messages" -v orgs=100 -v days=90 -f scripts/p6_seed.sql "$url" >/dev/null
seeded=$(( $(date +%s) - started ))
plans=$(mktemp)
psql -f scripts/p6_explain.sql "$url" > "$plans" 2>&1
echo "## P6: hot queries on $messages stored messages (issue 18)"
echo
echo "Command: \`BENCH_P6=1 make bench\` (\`scripts/bench_p6.sh\`): \`scripts/p6_seed.sql\` seeded $messages messages over"
echo "100 organizations and 90 days, with 3 status events, 1 outbox job, 2 customer events and 1 webhook delivery"
echo "each, in ${seeded} s; then \`scripts/p6_explain.sql\`. Database size: $(psql -tA "$url" -c 'SELECT pg_size_pretty(pg_database_size(current_database()))')."
echo
echo "| query | scans (plan nodes) | execution time |"
echo "|---|---|---|"
awk '
  /^== / { if (q != "") printf "| %s | %s | %s |\n", q, nodes, t; q = substr($0, 4); nodes = ""; t = ""; next }
  /Execution Time/ { v = $3 " ms"; t = (t == "" ? v : t ", " v); next }
  /(Index|Seq|Bitmap)[A-Za-z ]*Scan/ {
    line = $0; sub(/^ *(-> *)?/, "", line); sub(/ *\(actual.*$/, "", line); sub(/ *\(never executed\)/, "", line)
    nodes = (nodes == "" ? line : nodes "; " line)
  }
  END { if (q != "") printf "| %s | %s | %s |\n", q, nodes, t }
' "$plans"
echo
rm -f "$plans"
