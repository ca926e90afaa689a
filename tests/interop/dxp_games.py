#!/usr/bin/env python3
"""Plays complete games between pydraughts' DXP client (DXPEngine, the Initiator) and a running
`damast dxp --listen` (the Follower).

DXPEngine connects to the engine, sends GAMEREQ (always with an explicit board), then one MOVE per
move of the other side; every MOVE damast answers is matched by pydraughts against its own board
and must be one of the legal moves of our board here. The other side's moves come from a
`damast hub` engine driven by pydraughts' HubEngine, or from a seeded random mover. A game ends by
pydraughts' rules (board.is_over()) or is adjudicated at a ply cap; DXPEngine.quit() then sends
GAMEEND. One game also takes moves back with BACKREQ (DXPEngine.takeback).

A game passes when it ended without an exception, an illegal or missing move, and without any
CHAT from damast (damast chats only to report a protocol error) or unexpected DXP message.

Usage: dxp_games.py --port PORT [--hub-engine PATH] [--max-plies N] [--timeout S]
Prints one line per game and `N passed, M failed` last; exits non-zero on any failure.
"""

import argparse
import logging
import os
import random
import sys
import threading
import time

try:
    from draughts import Board, WHITE, BLACK
    from draughts.engine import DXPEngine, HubEngine, Limit
except ImportError as e:  # the Rust wrapper test explains how to get pydraughts
    print(f"cannot import pydraughts: {e}", file=sys.stderr)
    sys.exit(3)

# A set-up position (white to move) with kings on both sides: it ends by the rules quickly.
SETUP_FEN = "W:W28,32,33,38,K46:B12,13,17,19,K5"
# Two kings against one: drawn by the 5-move rule (both libraries count 5 moves each).
KINGS_FEN = "W:WK3,K35:BK28"


class Collector(logging.Handler):
    """Collects pydraughts' log lines that show a protocol problem."""

    SIGNS = (
        "rcv CHAT",
        "received move is illegal",
        "rcv UNKNOWN",
        "NOT accepted",
        "Error trying to connect",
        "Error sending",
    )

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.problems = []

    def emit(self, record):
        text = record.getMessage()
        if any(s in text for s in self.SIGNS):
            self.problems.append(text.strip())


def call_with_timeout(what, fn, timeout):
    """Runs fn() on a thread; a hang becomes an error (DXPEngine busy-waits forever otherwise)."""
    box = {}

    def target():
        try:
            box["value"] = fn()
        except Exception as e:  # noqa: BLE001 - reported to the caller
            box["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        raise RuntimeError(f"{what}: no answer within {timeout} s")
    if "error" in box:
        raise box["error"]
    return box.get("value")


def same_move(board, move):
    """The legal move of `board` that `move` (from another board object) stands for."""
    for m in board.legal_moves():
        if m.board_move == move.board_move:
            return m
    return None


class Game:
    def __init__(self, name, damast_white, fen, opponent, initial_time, takeback=False):
        self.name = name
        self.damast = WHITE if damast_white else BLACK
        self.fen = fen
        self.opponent = opponent  # "random" or "hub"
        self.initial_time = initial_time
        self.takeback = takeback


def damast_move(engine, board, timeout):
    legal = [m.board_move for m in board.legal_moves()]
    result = call_with_timeout("damast's move", lambda: engine.play(board), timeout)
    move = result.move if result else None
    if move is None:
        raise RuntimeError(f"no move from damast at ply {len(board.move_stack)}")
    if move.board_move not in legal:
        raise RuntimeError(f"illegal move {move.board_move} from damast at ply {len(board.move_stack)}")
    return same_move(board, move)


def play(game, port, hub, rng, max_plies, timeout):
    board = Board(variant="standard", fen=game.fen)
    engine = DXPEngine(None, {"port": port, "initial-time": game.initial_time, "max-moves": 0})
    took_back = False
    end = None
    while not board.is_over():
        plies = len(board.move_stack)
        if plies >= max_plies:
            end = f"draw adjudicated after {plies} plies"
            break
        if board.turn == game.damast:
            board.push(damast_move(engine, board, timeout))
        else:
            if game.takeback and not took_back and plies >= 7:
                # back to the position after black's 2nd move: damast (white) is to move again.
                # (DXPEngine takes the engine's colour from the side to move of the initial
                # position, so it only waits for the engine's move when damast has that colour.)
                accepted, new_board, result = call_with_timeout(
                    "takeback", lambda: engine.takeback(3, WHITE), timeout
                )
                if not accepted:
                    raise RuntimeError("damast refused the take-back")
                while len(board.move_stack) > 4:
                    board.pop()
                if new_board.fen != board.fen:
                    raise RuntimeError(f"boards differ after the take-back: {new_board.fen} {board.fen}")
                move = result.move
                if move is None or same_move(board, move) is None:
                    raise RuntimeError("no legal move from damast after the take-back")
                board.push(same_move(board, move))
                took_back = True
                continue
            if game.opponent == "hub":
                move = hub.play(board, Limit(depth=2), False).move
            else:
                move = rng.choice(board.legal_moves())
            board.push(move)
    if end is None:
        winner = board.winner()
        end = {0: "draw", BLACK: "black wins", WHITE: "white wins"}.get(winner, f"winner {winner}")
        end += f" by the rules after {len(board.move_stack)} plies"
    if game.takeback and not took_back:
        raise RuntimeError("the game ended before the take-back")
    return engine, end


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--hub-engine", default=None, help="damast binary for the `damast hub` opponent")
    ap.add_argument("--max-plies", type=int, default=160)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=20240531)
    args = ap.parse_args()

    problems = Collector()
    log = logging.getLogger("pydraughts")
    log.addHandler(problems)
    log.setLevel(logging.DEBUG)
    log.propagate = False

    start = "W:W31-50:B1-20"
    games = [
        Game("damast white, random opponent, time 000", True, start, "random", 0),
        Game("damast black, random opponent, 1 minute", False, start, "random", 60),
        Game("damast white, set-up position, hub opponent", True, SETUP_FEN, "hub", 0),
        Game("damast white, take-back, hub opponent", True, start, "hub", 0, takeback=True),
        Game("damast black, king ending, hub opponent", False, KINGS_FEN, "hub", 0),
    ]
    if not args.hub_engine:
        games = [g for g in games if g.opponent != "hub"]

    hub = None
    if args.hub_engine:
        hub = HubEngine([args.hub_engine, "hub"])
        hub.setoption("tt-size", "16")
        hub.init()

    rng = random.Random(args.seed)
    passed = failed = 0
    closers = []
    for n, game in enumerate(games, 1):
        before = len(problems.problems)
        t = time.monotonic()
        engine = None
        try:
            engine, end = play(game, args.port, hub, rng, args.max_plies, args.timeout)
            seen = problems.problems[before:]
            if seen:
                raise RuntimeError(f"protocol problems: {seen[:3]}")
            passed += 1
            print(f"game {n} ({game.name}): ok, {end} ({time.monotonic() - t:.1f}s)", flush=True)
        except Exception as e:  # noqa: BLE001 - every failure is reported, not raised
            failed += 1
            print(f"game {n} ({game.name}): FAILED: {type(e).__name__}: {e}", flush=True)
        finally:
            if engine is not None:
                # DXPEngine.quit() sends GAMEEND, then sleeps 7 s before closing: let it run
                # in the background while the next game starts (damast serves connections one
                # after another and sees the end of this one at once).
                c = threading.Thread(target=engine.quit, daemon=True)
                c.start()
                closers.append(c)
                time.sleep(0.2)
    # quit() shuts the socket down before its 7 s sleep: a moment is enough for the last one
    until = time.monotonic() + 1.5
    for c in closers:
        c.join(max(0.0, until - time.monotonic()))
    if hub is not None:
        try:
            hub.quit()
            hub.kill_process()
        except Exception:  # noqa: BLE001
            pass
    late = problems.problems
    if late and failed == 0:
        print(f"protocol problems after the games: {late[:3]}")
        failed += 1
    print(f"{passed} passed, {failed} failed")
    sys.stdout.flush()
    os._exit(1 if failed or not passed else 0)


if __name__ == "__main__":
    main()
