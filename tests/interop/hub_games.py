#!/usr/bin/env python3
"""Plays complete games between two `damast hub` engines through pydraughts, the Hub client that
the lidraughts bot and many match scripts use.

pydraughts drives each engine (handshake, `pos` with the whole game in `moves=`, `level`, `go`)
and keeps its own board: every move an engine answers must be legal on that board. A game ends
by the rules (board.is_over()) or is adjudicated a draw at a move cap. A game passes when it
ended without an exception, an illegal move, a lost clock or any unexpected engine line (which
pydraughts logs as a warning).

Usage: hub_games.py [--engine PATH] [--variant V] [--time-games N] [--depth-games N] [--max-plies N]

V is international (default), english or italian: the variants whose numbering pydraughts and
damast share.
Prints one line per game and `N passed, M failed` last; exits non-zero on any failure.
"""

import argparse
import logging
import os
import sys
import time

try:
    from draughts import Board
    from draughts.engine import HubEngine, Limit
except ImportError as e:  # the Rust wrapper test explains how to get pydraughts
    print(f"cannot import pydraughts: {e}", file=sys.stderr)
    sys.exit(3)


class Warnings(logging.Handler):
    """Collects pydraughts' warnings (unexpected engine output)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(record.getMessage())


# damast's variant name -> (pydraughts' board variant, Hub value of the `variant` parameter)
VARIANTS = {
    "international": ("standard", "normal"),
    "english": ("english", "english"),
    "italian": ("italian", "italian"),
}


def start_engine(path, variant):
    engine = HubEngine([path, "hub"])
    if engine.id.get("name") != "Damast":
        raise RuntimeError(f"unexpected id {engine.id}")
    for name in ("variant", "threads", "tt-size"):
        if name not in engine.options:
            raise RuntimeError(f"parameter {name} not declared: {engine.options}")
    engine.setoption("variant", VARIANTS[variant][1])
    engine.setoption("tt-size", "16")
    engine.setoption("threads", "1")
    engine.setoption("book", "false")  # undeclared: must be accepted silently
    engine.init()
    return engine


def stop_engine(engine):
    try:
        engine.quit()
    except Exception:
        pass
    try:
        engine.kill_process()
    except Exception:
        pass


def play_game(engines, limits, max_plies, timed, variant):
    """Plays one game; engines[0] is white. Returns a description of the end."""
    board = Board(variant=VARIANTS[variant][0])
    clock = [limits[0].time, limits[1].time] if timed else None
    plies = 0
    while not board.is_over():
        if plies >= max_plies:
            return f"draw adjudicated after {plies} plies"
        side = 0 if board.turn == 2 else 1  # pydraughts: WHITE == 2, BLACK == 1
        limit = limits[side]
        if timed:
            limit = Limit(time=round(max(clock[side], 0.0), 3), inc=limits[side].inc)
        legal = [m.board_move for m in board.legal_moves()]
        start = time.monotonic()
        result = engines[side].play(board, limit, False)
        used = time.monotonic() - start
        if timed:
            clock[side] += limits[side].inc - used
            # a loose bound: this test is about the protocol, and on a loaded machine the
            # wall clock here also counts the time the engine waits for a core; the match runner's
            # 1+0.01 check (README) holds the engine to its clock on a quiet machine
            if clock[side] < -1.0:
                raise RuntimeError(f"side {side} lost on time at ply {plies} ({clock[side]:.3f}s)")
        move = result.move
        if move is None or move.board_move not in legal:
            raise RuntimeError(f"illegal move {getattr(move, 'hub_move', None)} at ply {plies}")
        board.push(move)
        plies += 1
    winner = board.winner()
    outcome = {0: "draw", 1: "black wins", 2: "white wins"}.get(winner, f"winner {winner}")
    return f"{outcome} by the rules after {plies} plies"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_engine = os.path.join(here, "..", "..", "target", "release", "damast")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", default=os.environ.get("DAMAST_BIN", default_engine))
    ap.add_argument("--variant", choices=sorted(VARIANTS), default="international")
    ap.add_argument("--time-games", type=int, default=2)
    ap.add_argument("--depth-games", type=int, default=2)
    ap.add_argument("--max-plies", type=int, default=150)
    ap.add_argument("--time", type=float, default=2.0)
    ap.add_argument("--inc", type=float, default=0.1)
    args = ap.parse_args()

    warnings = Warnings()
    logging.getLogger("pydraughts").addHandler(warnings)
    logging.getLogger("pydraughts").setLevel(logging.WARNING)
    logging.getLogger("pydraughts").propagate = False

    games = []
    for i in range(args.time_games):
        lim = Limit(time=args.time, inc=args.inc)
        games.append((f"time {args.time}+{args.inc}", [lim, lim], True, i % 2 == 1))
    depths = [(4, 6), (6, 4), (5, 5), (3, 7)]
    for i in range(args.depth_games):
        a, b = depths[i % len(depths)]
        games.append((f"depth {a} vs {b}", [Limit(depth=a), Limit(depth=b)], False, False))

    passed = failed = 0
    for n, (name, limits, timed, swap) in enumerate(games, 1):
        engines = []
        before = len(warnings.records)
        t = time.monotonic()
        try:
            engines = [start_engine(args.engine, args.variant) for _ in range(2)]
            if swap:
                engines.reverse()
            end = play_game(engines, limits, args.max_plies, timed, args.variant)
            new_warnings = warnings.records[before:]
            if new_warnings:
                raise RuntimeError(f"unexpected engine output: {new_warnings[:3]}")
            passed += 1
            print(f"game {n} ({name}): ok, {end} ({time.monotonic() - t:.1f}s)", flush=True)
        except Exception as e:  # noqa: BLE001 - every failure is reported, not raised
            failed += 1
            print(f"game {n} ({name}): FAILED: {type(e).__name__}: {e}", flush=True)
        finally:
            for engine in engines:
                stop_engine(engine)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
