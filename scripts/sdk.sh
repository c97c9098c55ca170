#!/usr/bin/env bash
# `make sdk`: regenerates the SDKs from docs/openapi.json with the generators pinned in this repository
#   clients/typescript/src/schema.ts   openapi-typescript (clients/typescript/package-lock.json)
#   clients/python/herald_client/, clients/python/pyproject.toml   openapi-python-client
#                                      (scripts/sdk-tools/requirements.txt, clients/python-generator.yml)
# `scripts/sdk.sh --check` (in `make lint`) generates into a scratch folder and fails when the committed
# output differs. The hand-written parts (READMEs, examples, clients/typescript/src/index.ts) stay as they are.
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-write}"

status=0
scripts/install-sdk-tools.sh || status=$?
if [ "$status" -eq 3 ]; then
  echo "!! SKIPPED: the SDKs are neither generated nor checked" >&2
  exit 0
fi
[ "$status" -eq 0 ] || exit "$status"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
(cd clients/typescript && node_modules/.bin/openapi-typescript ../../docs/openapi.json \
  --output "$scratch/schema.ts" >/dev/null)
PATH="$PWD/target/sdk-tools/python/bin:$PATH" target/sdk-tools/python/bin/openapi-python-client generate --path docs/openapi.json --meta pdm \
  --config clients/python-generator.yml --output-path "$scratch/python" >/dev/null
# The package's own README is the hand-written clients/python/README.md.
rm "$scratch/python/README.md"

if [ "$mode" = "--check" ]; then
  failed=""
  cmp -s "$scratch/schema.ts" clients/typescript/src/schema.ts || failed="clients/typescript/src/schema.ts"
  diff -r "$scratch/python/herald_client" clients/python/herald_client -x __pycache__ >/dev/null ||
    failed="$failed clients/python/herald_client"
  cmp -s "$scratch/python/pyproject.toml" clients/python/pyproject.toml ||
    failed="$failed clients/python/pyproject.toml"
  if [ -n "$failed" ]; then
    echo "the committed SDKs differ from a fresh generation from docs/openapi.json ($failed): run \`make sdk\` and commit" >&2
    exit 1
  fi
  echo "the SDKs match a fresh generation from docs/openapi.json"
  exit 0
fi

cp "$scratch/schema.ts" clients/typescript/src/schema.ts
mkdir -p clients/python
rm -rf clients/python/herald_client
cp -r "$scratch/python/herald_client" clients/python/herald_client
cp "$scratch/python/pyproject.toml" clients/python/pyproject.toml
echo "regenerated clients/typescript/src/schema.ts and clients/python/herald_client from docs/openapi.json"
