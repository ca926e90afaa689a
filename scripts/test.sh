#!/usr/bin/env bash
# Runs the test suite: makes sure a Python venv with pydraughts exists at .venv (used by tests
# that cross-check against it through DAMAST_PYTHON), then runs `cargo test --release`.
# Extra arguments are passed on to cargo test, e.g. `scripts/test.sh --test perft -- --ignored`.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
if ! .venv/bin/python -m pip show --quiet pydraughts >/dev/null 2>&1; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check pydraughts
fi
export DAMAST_PYTHON="$PWD/.venv/bin/python"

cargo test --release "$@"
