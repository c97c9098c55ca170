#!/usr/bin/env bash
# Runs the benchmarks and writes docs/benchmarks.md: the machine, each command, each figure.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${HERALD_TEST_DATABASE_URL:-}" ] && (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; then
  export HERALD_TEST_DATABASE_URL="postgres://postgres@127.0.0.1:5432/test"
fi
report=docs/benchmarks.md
tmp=$(mktemp)
{
  echo "# Herald benchmarks"
  echo
  echo "Written by \`make bench\` on $(date -u +%Y-%m-%dT%H:%MZ). Figures drift on shared machines: compare ratios"
  echo "measured in the same run, not absolute numbers across runs."
  echo
  echo "Machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB memory, $(uname -sr), $(rustc --version)."
  echo
} > "$tmp"
HERALD_BENCH_REPORT="$tmp" RUST_LOG=warn cargo bench -p herald-tests --bench dispatch --bench webhooks
mv "$tmp" "$report"
echo "wrote $report"
