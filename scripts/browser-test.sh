#!/usr/bin/env bash
# Real-browser test of `damast serve`: headless Chromium (Debian's package) driven by Playwright
# for Python plays a whole game by clicking in the page (tests/browser/play_game.py).
#
# Usage: scripts/browser-test.sh [BINARY [OUTDIR]]
#   BINARY  the damast binary to serve with (default target/release/damast; build it first)
#   OUTDIR  where the screenshots and the server's log go (default target/browser)
#
# Installs what is missing: the chromium package (as root, through apt-get) and the playwright
# package into the repository's .venv (never `playwright install`: it would download a browser
# of its own). Exits non-zero when the test fails.
set -euo pipefail
cd "$(dirname "$0")/.."

BINARY="${1:-target/release/damast}"
OUTDIR="${2:-target/browser}"

if [ ! -x "$BINARY" ]; then
    echo "browser-test: no executable $BINARY (build it with: cargo build --release)" >&2
    exit 2
fi

if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "browser-test: /usr/bin/chromium is missing; install the chromium package as root" >&2
        exit 2
    fi
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y chromium; then
        apt-get update
        apt-get install -y chromium
    fi
fi

if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
if ! .venv/bin/python -c 'import playwright.sync_api' >/dev/null 2>&1; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check playwright
fi

mkdir -p "$OUTDIR"
rm -f "$OUTDIR"/failure.png
SERVER_OUT="$OUTDIR/server.out"
SERVER_LOG="$OUTDIR/server.log"
: >"$SERVER_OUT"

"$BINARY" serve --listen 127.0.0.1:0 >"$SERVER_OUT" 2>"$SERVER_LOG" &
SERVER_PID=$!
stop_server() {
    if kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
}
trap stop_server EXIT

# the server's first line on stdout: "listening on http://127.0.0.1:PORT/"
URL=""
for _ in $(seq 1 200); do
    line="$(head -n 1 "$SERVER_OUT" 2>/dev/null || true)"
    case "$line" in
        "listening on "*)
            URL="${line#listening on }"
            break
            ;;
    esac
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        echo "browser-test: the server exited before listening" >&2
        cat "$SERVER_LOG" >&2 || true
        exit 1
    fi
    sleep 0.1
done
if [ -z "$URL" ]; then
    echo "browser-test: the server did not say where it listens within 20 s" >&2
    cat "$SERVER_LOG" >&2 || true
    exit 1
fi
echo "browser-test: server at $URL (pid $SERVER_PID)"

status=0
.venv/bin/python tests/browser/play_game.py "$URL" "$OUTDIR" || status=$?
if [ "$status" -ne 0 ]; then
    echo "browser-test: FAILED (screenshots and the server log in $OUTDIR)" >&2
    tail -n 20 "$SERVER_LOG" >&2 || true
fi
exit "$status"
