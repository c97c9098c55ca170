#!/usr/bin/env bash
# `make faults`: the fault suite (docs/faults.md). Builds release binaries, then herald-faults starts a
# PostgreSQL of its own (initdb on a free loopback port; the shared one on 5432 is never touched), the
# standalone simulator, two API and two worker processes, and runs the trials. Last line: "N passed, N failed".
# Durations come from FAULTS_* variables (CI sets a short form), e.g.
#   FAULTS_KILL_TRIALS=3 FAULTS_PG_OUTAGE_SECONDS=12 FAULTS_NETWORK_OUTAGE_SECONDS=5 FAULTS_RECEIVER_OUTAGE_SECONDS=5 make faults
set -euo pipefail
cd "$(dirname "$0")/.."

if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  echo "make faults needs PostgreSQL's server binaries (/usr/lib/postgresql/*/bin/initdb)" >&2
  exit 2
fi
# FAULTS_PROFILE=debug reuses the debug build of `make test` (CI: saves a full release build).
profile="${FAULTS_PROFILE:-release}"
if [ "$profile" = "release" ]; then
  cargo build --release -p herald-app -p herald-faults
else
  # The workspace's own feature set, as `make test` built it: `-p` would resolve features anew and rebuild.
  cargo build --workspace --all-targets
  profile="debug"
fi
exec "target/$profile/herald-faults" --herald "target/$profile/herald" "$@"
