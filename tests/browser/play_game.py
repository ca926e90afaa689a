#!/usr/bin/env python3
"""Real-browser test of the `damast serve` page: plays a whole game by clicking.

Usage: play_game.py URL [OUTDIR]

Headless Chromium (Debian's /usr/bin/chromium) driven by Playwright. The human (White) moves
only through the page: a press on a movable piece, then clicks on the highlighted targets
landing by landing (the first move is dragged instead of clicked). The engine plays Black at
level easy, 0.1 s a move. After the 6th human move the test takes back one turn with Undo and
checks that two plies went; then it plays on until the game ends, checks the shown result
against the API's state, runs "Analyse game" and waits for the score graph.

Screenshots go to OUTDIR (default target/browser): board.png, graph.png, page.png, and
failure.png when something goes wrong. Exit 0 on success, 1 on failure.
"""

import json
import os
import random
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SEED = 20250601
MAX_PLIES = 400
MAX_SECONDS = 600
UNDO_AFTER = 6  # human moves
TURN_TIMEOUT_MS = 60_000  # waiting for the engine's reply
REVIEW_TIMEOUT_MS = 300_000


class TestFailure(Exception):
    pass


def check(cond, what):
    if not cond:
        raise TestFailure(what)


def dataset(page):
    return page.evaluate("() => ({...document.body.dataset})")


def squares(page, selector):
    """The square numbers of the squares holding elements matching `selector`."""
    return page.evaluate(
        """(sel) => [...document.querySelectorAll(sel)]
            .map(e => Number(e.closest('[data-square]').dataset.square))""",
        selector,
    )


def wait_for_human_turn(page):
    """Waits until the game is over, or it is White's turn with pieces to click."""
    page.wait_for_function(
        """() => {
            const d = document.body.dataset;
            if (d.result !== '') return true;
            return d.thinking === 'false' && d.side === 'white'
                && document.querySelectorAll('.piece.movable').length > 0;
        }""",
        timeout=TURN_TIMEOUT_MS,
    )


def click_square(page, n):
    page.click(f'#board [data-square="{n}"]')


def square_box(page, n):
    """The box of square n on the screen, once the square is shown (the board may be re-drawn
    between finding a square and measuring it, when the box is briefly unknown)."""
    square = page.locator(f'#board [data-square="{n}"]')
    for _ in range(50):
        square.wait_for(state="visible", timeout=5000)
        box = square.bounding_box()
        if box is not None:
            return box
        time.sleep(0.02)
    raise TestFailure(f"square {n} is never shown on the board")


def play_human_move(page, rng, use_drag):
    """Plays one White move by clicking (or dragging) a piece, then its targets one by one.

    Answers the squares clicked and whether the move was a (compulsory) capture.
    """
    before = dataset(page)
    ply = before["ply"]
    movable = sorted(set(squares(page, ".piece.movable")))
    must = sorted(set(squares(page, ".piece.must-capture")))
    check(movable, "no movable piece on White's turn")
    if must:
        check(set(must) == set(movable), f"must-capture pieces {must} but movable {movable}")
    start = rng.choice(must or movable)
    path = [start]

    if use_drag:
        # lift the piece with the mouse: its targets show while it is held
        box = square_box(page, start)
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        page.mouse.move(box["x"] + box["width"] / 2 + 12, box["y"] + box["height"] / 2 + 12, steps=3)
        page.wait_for_function(
            "(s) => document.body.dataset.selection === s && document.querySelectorAll('.target').length > 0",
            arg=str(start),
            timeout=5000,
        )
        target = rng.choice(sorted(set(squares(page, ".sq.target"))))
        box_b = square_box(page, target)
        page.mouse.move(box_b["x"] + box_b["width"] / 2, box_b["y"] + box_b["height"] / 2, steps=6)
        page.mouse.up()
        path.append(target)
    else:
        click_square(page, start)
        page.wait_for_function(
            "(s) => document.body.dataset.selection === s && document.querySelectorAll('.target').length > 0",
            arg=str(start),
            timeout=5000,
        )
        target = rng.choice(sorted(set(squares(page, ".sq.target"))))
        click_square(page, target)
        path.append(target)

    # landing by landing: after each landing either the move has gone (the ply changes) or the
    # next landings are highlighted
    while True:
        prefix = "-".join(map(str, path))
        page.wait_for_function(
            """([ply, prefix]) => {
                const d = document.body.dataset;
                if (d.ply !== ply || d.result !== '') return true;
                if (Number(d.errors) > 0) return true;
                if (!document.querySelector('#choices').hidden) return true;
                return d.selection === prefix && document.querySelectorAll('.target').length > 0;
            }""",
            arg=[ply, prefix],
            timeout=10_000,
        )
        d = dataset(page)
        check(d["errors"] == "0", f"the page shows an error: {message_text(page)}")
        if d["ply"] != ply or d["result"] != "":
            return path, bool(must)
        if not page.locator("#choices").is_hidden():
            # several moves fit the clicks (ambiguous captures): take one of the listed ones
            buttons = page.locator("#choices button.choice:not(.cancel)")
            count = buttons.count()
            check(count > 0, "a choice list without choices")
            buttons.nth(rng.randrange(count)).click()
            page.wait_for_function(
                "(ply) => document.body.dataset.ply !== ply || Number(document.body.dataset.errors) > 0",
                arg=ply,
                timeout=10_000,
            )
            check(dataset(page)["errors"] == "0", f"the page shows an error: {message_text(page)}")
            return path + ["(choice)"], bool(must)
        target = rng.choice(sorted(set(squares(page, ".sq.target"))))
        click_square(page, target)
        path.append(target)


def message_text(page):
    return page.locator("#message").inner_text().strip()


def api_get(base, path):
    with urllib.request.urlopen(base.rstrip("/") + path, timeout=10) as r:
        return json.loads(r.read().decode())


def new_game(page):
    old = dataset(page)["gameId"]
    page.locator("#new-game-card").evaluate("e => e.open = true")
    page.select_option("#variant", "international")
    page.select_option("#colour", "white")
    page.select_option("#level", "easy")
    page.fill("#movetime", "0.1")
    page.click("#new-game")
    page.wait_for_function(
        "(old) => document.body.dataset.gameId !== '' && document.body.dataset.gameId !== old"
        " && document.body.dataset.ply === '0'",
        arg=old,
        timeout=10_000,
    )
    return dataset(page)["gameId"]


def run(page, base, outdir):
    t0 = time.monotonic()
    page.goto(base, wait_until="load")
    # the page starts a game of its own at once
    page.wait_for_function("() => document.body.dataset.gameId !== ''", timeout=15_000)
    game_id = new_game(page)
    state = api_get(base, f"/api/games/{game_id}")
    check(state["engine"] == "black" and state["level"] == "easy", f"settings not applied: {state['engine']} {state['level']}")
    check(abs(state["movetime"] - 0.1) < 1e-9, f"movetime not applied: {state['movetime']}")

    rng = random.Random(SEED)
    human_moves = 0
    undone = False
    captures = 0
    multi = 0  # captures entered with more than one landing
    while True:
        wait_for_human_turn(page)
        d = dataset(page)
        check(d["errors"] == "0", f"the page shows an error: {message_text(page)}")
        if d["result"] != "":
            break
        ply = int(d["ply"])
        check(ply <= MAX_PLIES, f"no result after {MAX_PLIES} plies")
        check(time.monotonic() - t0 < MAX_SECONDS, f"no result after {MAX_SECONDS} s")

        if human_moves == UNDO_AFTER and not undone:
            # take back the last turn: our move and the engine's reply
            page.click("#undo")
            page.wait_for_function(
                "(ply) => document.body.dataset.ply === String(ply) && document.body.dataset.side === 'white'"
                " && document.body.dataset.thinking === 'false'",
                arg=ply - 2,
                timeout=10_000,
            )
            check(page.locator("#side").inner_text().strip().startswith("White"), "#side does not say White after undo")
            check(page.locator("#redo").is_enabled(), "redo is not enabled after undo")
            undone = True
            print(f"undo at ply {ply}: back to ply {ply - 2}, White to move")
            continue

        path, captured = play_human_move(page, rng, use_drag=(human_moves == 0))
        human_moves += 1
        captures += captured
        multi += len(path) > 2

    elapsed_game = time.monotonic() - t0
    d = dataset(page)
    state = api_get(base, f"/api/games/{game_id}")
    check(state["result"] is not None, "the page shows a result but the state's result is null")
    check(d["result"] == state["result"]["score"], f"body.dataset.result {d['result']!r} != state {state['result']['score']!r}")
    shown = page.locator("#result").inner_text()
    check(page.locator("#result").is_visible(), "#result is not visible")
    check(state["result"]["score"] in shown, f"#result {shown!r} lacks the score {state['result']['score']!r}")
    check(state["result"]["reason"] in shown, f"#result {shown!r} lacks the reason {state['result']['reason']!r}")
    check(undone, "the game ended before the undo check")
    check(len(state["moves"]) == state["ply"] == int(d["ply"]), "ply and move count disagree")
    check(page.locator("#moves .mv[data-ply]").count() >= state["ply"], "the move list misses moves")
    page.locator("#board").screenshot(path=str(outdir / "board.png"))

    # the game review: progress, then the graph
    t1 = time.monotonic()
    page.fill("#review-movetime", "0.05")
    page.click("#analyse-game")
    page.wait_for_function(
        "() => document.body.dataset.review === 'stopped' || Number(document.body.dataset.errors) > 0"
        " || (document.body.dataset.review === 'done'"
        " && document.querySelector('#graph').dataset.complete === 'true'"
        " && document.querySelector('#graph .score-line') !== null)",
        timeout=REVIEW_TIMEOUT_MS,
    )
    check(dataset(page)["errors"] == "0", f"the page shows an error: {message_text(page)}")
    state = api_get(base, f"/api/games/{game_id}")
    review = state["review"]
    check(review is not None and not review["running"], "the state's review is missing or still running")
    check(dataset(page)["review"] == "done",
          f"the review stopped at {review['done']} of {review['total']} plies without being asked to")
    check(review["done"] == review["total"] == len(review["entries"]), f"review incomplete: {review['done']}/{review['total']}")
    check(review["total"] == state["ply"], f"review covers {review['total']} plies of {state['ply']}")
    blunders = sum(1 for e in review["entries"] if e["blunder"])
    shown_blunders = page.locator("#graph circle.blunder").count()
    check(shown_blunders == blunders, f"graph shows {shown_blunders} blunders, review has {blunders}")
    check(page.locator("#moves .mv.blunder").count() == blunders, "move list blunder marks disagree with the review")
    check(dataset(page)["errors"] == "0", f"the page shows an error: {message_text(page)}")
    elapsed_review = time.monotonic() - t1
    page.locator("#graph").screenshot(path=str(outdir / "graph.png"))
    page.screenshot(path=str(outdir / "page.png"), full_page=True)

    # the server sends states in the order they occur: the page never has to correct one
    resyncs = int(dataset(page).get("resyncs", "0"))
    check(resyncs == 0, f"the page corrected {resyncs} out-of-order state event(s) by reading the state again "
          "(a state event arrived after a newer one)")
    print(
        f"ok: {state['ply']} plies ({human_moves} human moves, {captures} captures by White, {multi} with several landings), "
        f"result {state['result']['score']} ({state['result']['reason']}); "
        f"game {elapsed_game:.1f} s, review of {review['total']} plies {elapsed_review:.1f} s "
        f"({blunders} blunders); total {time.monotonic() - t0:.1f} s"
    )


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    base = sys.argv[1]
    outdir = Path(sys.argv[2] if len(sys.argv) > 2 else "target/browser")
    outdir.mkdir(parents=True, exist_ok=True)
    page_errors = []
    with sync_playwright() as p, tempfile.TemporaryDirectory(prefix="damast-chromium-") as profile:
        context = p.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1360, "height": 900},
        )
        page = context.pages[0] if context.pages else context.new_page()
        trace = os.environ.get("DAMAST_TRACE_JS")
        if trace:
            # debugging aid: a script run before the page's own (e.g. logging its requests)
            page.add_init_script(path=trace)
            page.on("console", lambda m: print(f"  console: {m.text}") if m.type == "log" else None)
        page.on("pageerror", lambda e: page_errors.append(f"page error: {e}"))
        page.on("console", lambda m: page_errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        try:
            run(page, base, outdir)
            if page_errors:
                raise TestFailure("; ".join(page_errors[:5]))
            code = 0
        except Exception as e:  # noqa: BLE001 - any failure is reported the same way
            kind = "FAILED" if isinstance(e, TestFailure) else f"FAILED ({type(e).__name__})"
            print(f"{kind}: {e}")
            for err in page_errors[:10]:
                print(f"  {err}")
            try:
                d = dataset(page)
                print(f"  page state: {d}; message: {message_text(page)!r}")
                if d.get("gameId"):
                    # the server's view, to tell a page that missed an event from a stuck server
                    s = api_get(base, f"/api/games/{d['gameId']}")
                    print(f"  server state: ply {s['ply']}, {s['side']} to move, thinking {s['thinking']}, "
                          f"result {s['result']}")
                page.screenshot(path=str(outdir / "failure.png"), full_page=True)
                print(f"  screenshot: {outdir / 'failure.png'}")
            except Exception as e2:  # noqa: BLE001
                print(f"  (no screenshot: {e2})")
            code = 1
        finally:
            context.close()
    return code


if __name__ == "__main__":
    sys.exit(main())
