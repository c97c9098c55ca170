#!/usr/bin/env bash
# Runs every test. The PostgreSQL suites need a server: they use $HERALD_TEST_DATABASE_URL, else the CI
# default when one answers on 127.0.0.1:5432. Under CI=true they never skip: an unreachable server fails them.
set -euo pipefail
cd "$(dirname "$0")/.."

default_url="postgres://postgres@127.0.0.1:5432/test"
url="${HERALD_TEST_DATABASE_URL:-}"
if [ -z "$url" ]; then
  if [ "${CI:-}" = "true" ]; then
    url="$default_url"
  elif (exec 3<>/dev/tcp/127.0.0.1/5432) 2>/dev/null; then
    url="$default_url"
  fi
fi

skipped=""
if [ -n "$url" ]; then
  export HERALD_TEST_DATABASE_URL="$url"
  echo "PostgreSQL suites: ON against ${url}"
else
  unset HERALD_TEST_DATABASE_URL
  skipped="yes"
  cat >&2 <<'BANNER'
##########################################################################################
##  PostgreSQL is not reachable on 127.0.0.1:5432 and HERALD_TEST_DATABASE_URL is unset:  ##
##  the PostgreSQL contract and end-to-end suites are SKIPPED. SQLite suites still run.  ##
##########################################################################################
BANNER
fi

# The lint check that keeps the repository standalone proves, on throwaway repositories, that it finds what it
# must.
scripts/check-standalone.py --self-test

if command -v cargo-nextest >/dev/null 2>&1; then
  # Under CI=true the `ci` profile (.config/nextest.toml) prints every failure in full and gives the
  # end-to-end binaries one retry, reported as FLAKY.
  profile="default"
  [ "${CI:-}" = "true" ] && profile="ci"
  cargo nextest run --workspace --no-fail-fast --profile "$profile"
else
  echo "cargo-nextest not found; falling back to cargo test" >&2
  cargo test --workspace --no-fail-fast
fi

if [ -n "$skipped" ]; then
  echo >&2
  echo "!! SKIPPED: every PostgreSQL suite (store contract on PostgreSQL, API end-to-end on PostgreSQL, the multi-process test)." >&2
fi
if [ "${CI:-}" != "true" ] && ! (exec 3<>/dev/tcp/127.0.0.1/6379) 2>/dev/null; then
  echo "!! SKIPPED: the Redis rate-limiter suites (Redis is not reachable on 127.0.0.1:6379)." >&2
fi
if [ "${CI:-}" != "true" ] && { [ ! -x target/contract-clients/python/bin/python ] ||
  [ ! -d crates/herald-simulator/tests/clients/node/node_modules/whatsapp-api-js ]; }; then
  echo "!! SKIPPED: the simulator's contract test with real Cloud API clients (scripts/install-contract-clients.sh installs them)." >&2
fi
