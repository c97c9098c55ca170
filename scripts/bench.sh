#!/usr/bin/env bash
# Runs the benchmarks and writes docs/benchmarks.md: the machine, each command, each figure.
# Installs what it needs: `oha` (crates.io, into ./.tools) and `pgbench` (Debian's postgresql-client).
set -euo pipefail
cd "$(dirname "$0")/.."
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
{
  echo "# Herald benchmarks"
  echo
  echo "Written by \`make bench\` on $(date -u +%Y-%m-%dT%H:%MZ). Figures drift on shared machines: compare ratios"
  echo "measured in the same run, not absolute numbers across runs."
  echo
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')),"
  echo "$(free -g | awk '/Mem:/ {print $2}') GiB memory, $(uname -sr), $(rustc --version), PostgreSQL"
  echo "$(psql -tA "${HERALD_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}" -c 'SHOW server_version' 2>/dev/null || echo 'absent'), load generator $("$OHA" --version)."
  echo
} > "$tmp"
scripts/bench_http.py >> "$tmp"
scripts/bench_broadcast.py >> "$tmp"
scripts/bench_dispatch.py >> "$tmp"
HERALD_BENCH_REPORT="$tmp" RUST_LOG=warn cargo bench -p herald-tests --bench dispatch --bench webhooks
# P6: 10 million stored messages and the plans of the hot queries on them; minutes of seeding,
# so only when asked.
if [ "${BENCH_P6:-0}" = 1 ] && [ -n "${HERALD_TEST_DATABASE_URL:-}" ]; then
  scripts/bench_p6.sh >> "$tmp"
fi
{
  echo "## Targets"
  echo
  cat docs/benchmarks-notes.md
} >> "$tmp"
mv "$tmp" "$report"
echo "wrote $report"
