# Herald — the two commands a newcomer needs are `make run` and `make test`.
CARGO ?= cargo

.PHONY: run test lint fmt build bench clean-data help faults fuzz fuzz-api sdk

help:
	@echo "make run   - build and start Herald on SQLite (./data) with the in-process simulator and a demo organization"
	@echo "make test  - run every test (PostgreSQL suites run when PostgreSQL answers on 127.0.0.1:5432)"
	@echo "make lint  - no reference outside the repository, rustfmt --check, clippy -D warnings, promtool, the OpenAPI validator and the SDKs' freshness"
	@echo "make sdk   - regenerate clients/typescript and clients/python from docs/openapi.json (pinned generators)"
	@echo "make bench - measure and write docs/benchmarks.md"
	@echo "make faults   - the fault suite on a PostgreSQL of its own (docs/faults.md)"
	@echo "make fuzz     - every cargo-fuzz target for FUZZ_SECONDS each (docs/fuzzing.md)"
	@echo "make fuzz-api - schemathesis against the running API (docs/fuzzing.md)"

# ./data holds herald.db and encryption.key (made on first start; it opens the stored access tokens, so
# back it up with the database): readable by its owner only.
run:
	@mkdir -p -m 700 data
	$(CARGO) run -p herald-app --bin herald -- serve --demo

build:
	$(CARGO) build --workspace --all-targets

test:
	@scripts/test.sh

# Benchmarks write docs/benchmarks.md (machine, anchors, commands, figures); docs/benchmarks-history.md is
# written by hand and never touched by them. PostgreSQL figures need a server on
# 127.0.0.1:5432 (or HERALD_TEST_DATABASE_URL).
bench:
	@scripts/bench.sh

# Robustness: docs/faults.md and docs/fuzzing.md. Durations come from FAULTS_* / FUZZ_* variables.
faults:
	@scripts/faults.sh

fuzz:
	@scripts/fuzz.sh

fuzz-api:
	@scripts/fuzz-api.sh

lint:
	@scripts/check-standalone.py
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets -- -D warnings
	# The fuzzing door of herald-http is off in every workspace build; lint it on its own.
	$(CARGO) clippy -p herald-http --lib --features fuzzing -- -D warnings
	# The alert rules operators load (docs/operations.md, "Metrics"); under CI=true promtool must be there.
	@if command -v promtool >/dev/null 2>&1; then promtool check rules deploy/prometheus/herald-rules.yml; \
	elif [ "$$CI" = "true" ]; then echo "promtool is missing (apt-get install prometheus)"; exit 1; \
	else echo "!! SKIPPED: promtool check rules (apt-get install prometheus)"; fi

	# docs/openapi.json against a standard OpenAPI 3.1 validator, and the committed SDKs against a fresh
	# generation from it (tools pinned in scripts/sdk-tools/ and clients/typescript/package-lock.json).
	@scripts/check-openapi.sh

# The SDKs in clients/, generated from docs/openapi.json; regenerate after accepting a change of the document.
sdk:
	@scripts/sdk.sh

fmt:
	$(CARGO) fmt --all

clean-data:
	rm -rf data
