#!/usr/bin/env bash
# Installs the pinned Cloud API clients that the simulator's contract test drives
# (crates/herald-simulator/tests/clients): pywa from PyPI into a venv under target/, whatsapp-api-js from the
# npm registry into the pinned folder's node_modules. Both stay inside the checkout (git-ignored). Re-running
# it is cheap: nothing is fetched when the pinned versions are already there.
set -euo pipefail
cd "$(dirname "$0")/.."

clients="crates/herald-simulator/tests/clients"
venv="target/contract-clients/python"
requirements="$clients/python/requirements.txt"

# The venv remembers which requirements it was made from; a changed pin makes it anew.
if ! cmp -s "$requirements" "$venv/requirements.txt" 2>/dev/null; then
  echo "installing the pinned Python client ($requirements) into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes --no-deps -r "$requirements"
  cp "$requirements" "$venv/requirements.txt"
fi

# `npm ci` installs exactly the committed package-lock.json; a copy of it in node_modules marks that done.
node="$clients/node"
if ! cmp -s "$node/package-lock.json" "$node/node_modules/.installed-lock.json" 2>/dev/null; then
  echo "installing the pinned Node.js client ($node/package-lock.json)"
  (cd "$node" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$node/package-lock.json" "$node/node_modules/.installed-lock.json"
fi
