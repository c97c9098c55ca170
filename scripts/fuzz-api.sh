#!/usr/bin/env bash
# `make fuzz-api`: schemathesis (from PyPI, in a venv under target/) against /api/v1/openapi.json of a
# running `herald serve` (SQLite, the in-process simulator) with a valid API key. Fails on any 5xx and on
# any answer that breaks the schema (status code, content type, headers, body); then scripts/fuzz_hostile.py
# sends the shapes no schema describes (random and huge methods, extreme dates, huge bodies).
# FUZZ_API_EXAMPLES cases per operation and phase (default 300); FUZZ_API_PHASES narrows the phases (default: all);
# FUZZ_API_SEED picks the seed (default 8).
set -euo pipefail
cd "$(dirname "$0")/.."
examples="${FUZZ_API_EXAMPLES:-300}"
venv="target/schemathesis-venv"
schemathesis_version="4.32.5"

if [ ! -x "$venv/bin/schemathesis" ]; then
  echo "installing schemathesis ${schemathesis_version} from PyPI into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "schemathesis==${schemathesis_version}"
fi

# The workspace's own feature set, as `make test` built it (after it, nothing to build): `-p herald-app` would
# resolve features anew and rebuild most dependencies.
cargo build --workspace --all-targets
herald="$PWD/target/debug/herald"
work="$(mktemp -d)"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

export HERALD_DATABASE_URL="sqlite://$work/herald.db"
# Reads and other writes are rate limited per key (50/s, 5/s): lifted, or most cases would only see 429.
export HERALD_READ_RATE_PER_SECOND=1000000 HERALD_READ_BURST=1000000
export HERALD_WRITE_RATE_PER_SECOND=1000000 HERALD_WRITE_BURST=1000000
export RUST_LOG=warn
# A webhook endpoint on loopback, so the operations on /webhooks/{id} reach more than 404.
export HERALD_ALLOW_PRIVATE_WEBHOOK_TARGETS=true HERALD_ALLOW_INSECURE_WEBHOOKS=true
json() { python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }
org=$("$herald" admin org create --name Schemathesis --plan enterprise --json | json id)
"$herald" admin sender add --org "$org" --number +15550001111 --phone-number-id 1000000001 \
  --waba-id 2000000001 --default --json >/dev/null
key=$("$herald" admin key create --org "$org" --json | json key)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
metrics_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
HERALD_LISTEN="127.0.0.1:$port" HERALD_METRICS_LISTEN="127.0.0.1:$metrics_port" "$herald" serve >"$work/serve.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
  curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  sleep 0.2
done

# Real ids, used for half of the generated `{id}` / `{delivery_id}` values (the rest stay random).
api="http://127.0.0.1:$port/api/v1"
webhook=$(curl -fs -X POST "$api/webhooks" -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
  -d '{"url": "http://127.0.0.1:9/hook"}' | json id)
message=$(curl -fs -X POST "$api/messages/send-template" -H "Authorization: Bearer $key" \
  -H 'Content-Type: application/json' \
  -d '{"to": "+15551234567", "template": {"name": "hello_world", "language": "en_US"}}' | json id)
sleep 2
delivery=$(curl -fs "$api/webhooks/$webhook/deliveries" -H "Authorization: Bearer $key" |
  python3 -c "import json,sys; d=json.load(sys.stdin)['data']; print(d[0]['id'] if d else 'none')")
cat >"$work/schemathesis.toml" <<TOML
[dictionaries.ids]
values = ["$webhook", "$message"]

[dictionaries.deliveries]
values = ["$delivery"]

[parameters]
"path.id" = { dictionary = "ids", probability = 0.5 }
"path.delivery_id" = { dictionary = "deliveries", probability = 0.5 }
TOML

root="$PWD"
# One worker: schemathesis's workers are threads, and CPython 3.11 keeps the AST constructor's recursion depth
# in state the threads share (CPython gh-106905), so two threads parsing at once can fail a run with an
# internal error that says nothing about Herald (docs/fuzzing.md).
set +e
# Run from the work directory: schemathesis keeps a cache (.schemathesis/) in the current directory, and a
# replayed cache would shrink the run.
cd "$work"
"$root/$venv/bin/schemathesis" --config-file "$work/schemathesis.toml" run "http://127.0.0.1:$port/api/v1/openapi.json" \
  --header "Authorization: Bearer $key" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
  ${FUZZ_API_PHASES:+--phases "$FUZZ_API_PHASES"} \
  --max-examples "$examples" --seed "${FUZZ_API_SEED:-8}" --workers 1 --no-color \
  --suppress-health-check too_slow,filter_too_much \
  --report junit --report-dir "$root/target/schemathesis-report" "$@"
status=$?
# The shapes the document does not describe (methods of the client's invention, extreme dates, huge bodies):
# each answered with its documented status, and the metrics' series not grown by them.
python3 "$root/scripts/fuzz_hostile.py" "http://127.0.0.1:$port" "$key" "http://127.0.0.1:$metrics_port" || status=1
set -e
if [ $status -ne 0 ]; then
  echo "server log (last lines):"
  tail -30 "$work/serve.log"
fi
exit $status
