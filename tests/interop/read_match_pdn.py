#!/usr/bin/env python3
"""Reads the PDN file written by `damast match` with pydraughts' PDN reader and replays every game
on a pydraughts Board: every move must be legal there, the Result tag must be an international
result (2-0, 1-1, 0-2), and a game that the rules ended (no piece or no legal move) must be over
on pydraughts' board with the same winner.

Usage: read_match_pdn.py FILE EXPECTED_GAMES
Prints one line per game and `N passed, M failed` last; exits non-zero on any failure.

pydraughts 0.6 reads the first move of a game whose FEN has black to move twice (its reader
starts the move list with that move and then adds it again); such a doubled first move is
dropped here before replaying, and the check says so.
"""

import sys

try:
    from draughts import Board, Move
    from draughts.PDN import PDNReader
except ImportError as e:  # the Rust wrapper test explains how to get pydraughts
    print(f"cannot import pydraughts: {e}", file=sys.stderr)
    sys.exit(3)

RESULTS = {"2-0": 2, "0-2": 1, "1-1": 0}


def check(game):
    tags = game.tags
    for tag in ("Event", "Site", "Date", "Round", "White", "Black", "Result", "Termination"):
        if tag not in tags:
            raise RuntimeError(f"missing tag {tag}")
    result = tags["Result"]
    if result not in RESULTS:
        raise RuntimeError(f"result {result!r} is not international")
    if game.game_ending != result:
        raise RuntimeError(f"result token {game.game_ending!r} differs from tag {result!r}")
    fen = tags.get("FEN")
    moves = list(game.moves)
    note = ""
    if fen and fen.startswith("B") and len(moves) >= 2 and moves[0] == moves[1]:
        moves = moves[1:]
        note = " (pydraughts doubled the first move)"
    board = Board(variant="standard", fen=fen) if fen else Board(variant="standard")
    for i, text in enumerate(moves):
        legal = [m.pdn_move for m in board.legal_moves()]
        try:
            move = Move(board, pdn_move=text)
        except Exception as e:  # noqa: BLE001
            raise RuntimeError(f"move {i + 1} {text!r} unreadable: {e}; legal: {legal}")
        if move.board_move not in [m.board_move for m in board.legal_moves()]:
            raise RuntimeError(f"move {i + 1} {text!r} is illegal; legal: {legal}")
        board.push(move)
    reason = tags["Termination"]
    if "no pieces left" in reason or "no legal move" in reason:
        if not board.is_over():
            raise RuntimeError(f"'{reason}' but pydraughts says the game goes on")
        if board.winner() != RESULTS[result]:
            raise RuntimeError(f"'{reason}': pydraughts' winner {board.winner()} != {result}")
    return f"{len(moves)} moves, {result}, {reason}{note}"


def main():
    path, expected = sys.argv[1], int(sys.argv[2])
    games = PDNReader(filename=path).games
    passed = failed = 0
    for n, game in enumerate(games, 1):
        try:
            print(f"game {n}: ok, {check(game)}", flush=True)
            passed += 1
        except Exception as e:  # noqa: BLE001 - every failure is reported
            print(f"game {n}: FAILED: {e}", flush=True)
            failed += 1
    if len(games) != expected:
        print(f"expected {expected} games, read {len(games)}")
        failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
