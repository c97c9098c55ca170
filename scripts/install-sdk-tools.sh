#!/usr/bin/env bash
# Installs the pinned OpenAPI validator and SDK generators into git-ignored folders of this checkout:
#   target/sdk-tools/python   a venv with scripts/sdk-tools/requirements.txt (openapi-spec-validator,
#                             openapi-python-client, standardwebhooks, and httpx and attrs, which the
#                             generated client needs; the examples find it on PYTHONPATH=clients/python)
#   clients/typescript/node_modules   `npm ci` from the committed package-lock.json (openapi-typescript,
#                             openapi-fetch, typescript, standardwebhooks)
# Exits 0 when both are there, 3 when python3 or npm is missing on a laptop (the caller skips loudly); under
# CI=true a missing interpreter or a failed install fails.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="target/sdk-tools/python"
stamp="$venv/.requirements"

missing=""
command -v python3 >/dev/null 2>&1 || missing="python3"
command -v npm >/dev/null 2>&1 || missing="${missing:+$missing and }npm"
if [ -n "$missing" ]; then
  if [ "${CI:-}" = "true" ]; then
    echo "$missing is missing: the OpenAPI validator and the SDK generators cannot be installed" >&2
    exit 1
  fi
  echo "!! SKIPPED: $missing is missing, so the OpenAPI validator and the SDK tools are not installed" >&2
  exit 3
fi

if [ ! -f "$stamp" ] || ! cmp -s "$stamp" scripts/sdk-tools/requirements.txt; then
  echo "installing the pinned Python SDK tools into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/sdk-tools/requirements.txt
  cp scripts/sdk-tools/requirements.txt "$stamp"
fi

lock="clients/typescript/package-lock.json"
if [ ! -f clients/typescript/node_modules/.package-lock.json ] ||
  [ "$lock" -nt clients/typescript/node_modules/.package-lock.json ]; then
  echo "installing the pinned TypeScript SDK tools into clients/typescript/node_modules"
  (cd clients/typescript && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
fi
