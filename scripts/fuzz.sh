#!/usr/bin/env bash
# `make fuzz`: every cargo-fuzz target for FUZZ_SECONDS (default 60) each; see docs/fuzzing.md.
# cargo-fuzz needs nightly compiler flags (-Z sanitizer): RUSTC_BOOTSTRAP=1 allows them on the stable toolchain.
# Usage: scripts/fuzz.sh [target…]   (default: every target)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
export RUSTC_BOOTSTRAP=1

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz from crates.io"
  cargo install cargo-fuzz --locked
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo fuzz list)
fi

status=0
for target in "${targets[@]}"; do
  corpus="fuzz/corpus/$target"
  mkdir -p "$corpus"
  seeds=()
  [ -d "fuzz/seeds/$target" ] && seeds=("fuzz/seeds/$target")
  log="fuzz/artifacts/$target.log"
  mkdir -p fuzz/artifacts
  echo "== $target: ${seconds} s"
  if cargo fuzz run "$target" "$corpus" "${seeds[@]}" -- -max_total_time="$seconds" -print_final_stats=1 \
      >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    echo "   clean: ${runs:-?} executions, corpus $(ls "$corpus" | wc -l) inputs"
  else
    status=1
    echo "   CRASH or build failure; the last lines of $log:"
    tail -40 "$log"
  fi
done
exit $status
