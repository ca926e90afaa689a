#!/usr/bin/env bash
# Runs the test suite: makes sure a Python venv with pydraughts exists at .venv (used by tests
# that cross-check against it through DAMAST_PYTHON), runs `cargo test --release`, then the
# real-browser test of `damast serve` (scripts/browser-test.sh: headless Chromium, installed
# when missing). Extra arguments are passed on to cargo test and skip the browser test, e.g.
# `scripts/test.sh --test perft -- --ignored`.
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

if [ "$#" -eq 0 ]; then
    bash scripts/browser-test.sh target/release/damast
fi
