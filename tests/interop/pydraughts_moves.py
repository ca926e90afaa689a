#!/usr/bin/env python3
"""Compare the legal moves of `damast moves` with those of pydraughts.

Usage: pydraughts_moves.py DAMAST_BINARY [POSITIONS [SEED [VARIANT]]]

VARIANT is damast's name of the variant (default international; also english, italian, russian,
brazilian: the variants both programs play).

Positions come from seeded random play from the start position and from random placements of
men and kings of both sides (each followed by a few random moves). For each position the legal
move set of pydraughts, as (from, to, set of captured squares), is compared with the one printed
by `DAMAST_BINARY moves --variant VARIANT --fen FEN`, where FEN is pydraughts' own FEN of the
position. One line is printed per mismatch, and the last line is `N passed, M failed`. The exit
status is 0 only if no position failed.
"""

import random
import subprocess
import sys
import time

from draughts import Board

# damast's variant name -> (pydraughts' name, playable squares, squares per row)
VARIANTS = {
    "international": ("standard", 50, 5),
    "english": ("english", 32, 4),
    "italian": ("italian", 32, 4),
    "russian": ("russian", 32, 4),
    "brazilian": ("brazilian", 32, 4),
}
# pydraughts numbers the squares of these 8x8 games from a1 (1 = a1, 2 = c1, ..., 32 = h8)
# where damast uses the usual numbering from the top (1 = b8, ..., 32 = g1)
FROM_A1 = {"russian", "brazilian"}
DAMAST_VARIANT = "international"
VARIANT, SQUARES, ROW = VARIANTS[DAMAST_VARIANT]


def to_damast(n):
    """damast's number of pydraughts' square `n`."""
    if DAMAST_VARIANT not in FROM_A1:
        return n
    row_from_bottom, pos = divmod(n - 1, ROW)
    return (SQUARES // ROW - 1 - row_from_bottom) * ROW + pos + 1


def py_moves(board):
    """pydraughts' legal moves as a set of (from, to, frozenset(captured))."""
    moves = set()
    for m in board.legal_moves():
        steps = m.board_move
        frm, to = steps[0][0], steps[-1][1]
        moves.add(
            (
                to_damast(int(frm)),
                to_damast(int(to)),
                frozenset(to_damast(int(c)) for c in (m.captures or [])),
            )
        )
    return moves


def parse_hub(token):
    """A Hub move `a-b` or `axb[xc...]` as (from, to, frozenset(captured))."""
    if "-" in token:
        a, b = token.split("-")
        return (int(a), int(b), frozenset())
    parts = [int(p) for p in token.split("x")]
    return (parts[0], parts[1], frozenset(parts[2:]))


def damast_moves(binary, fen):
    """damast's legal moves, or raises RuntimeError with its error output."""
    out = subprocess.run(
        [binary, "moves", "--variant", DAMAST_VARIANT, "--fen", fen],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if out.returncode != 0:
        raise RuntimeError(f"damast exit status {out.returncode}: {out.stderr.strip()}")
    moves = []
    for line in out.stdout.splitlines():
        line = line.strip()
        if line:
            moves.append(parse_hub(line.split()[0]))
    return moves


def fmt(move):
    frm, to, caps = move
    if not caps:
        return f"{frm}-{to}"
    return f"{frm}x{to}" + "".join(f"x{c}" for c in sorted(caps))


def fmt_set(moves):
    return " ".join(fmt(m) for m in sorted(moves, key=lambda m: (m[0], m[1], sorted(m[2]))))


def random_placement(rng):
    """A FEN with a few men and kings of both sides (men never on their promotion row)."""
    while True:
        n = rng.randint(2, 16)
        squares = rng.sample(range(1, SQUARES + 1), n)
        white, black = [], []
        for i, sq in enumerate(squares):
            is_white = i % 2 == 0
            king = rng.random() < 0.35
            row_sq = to_damast(sq)  # the rows counted from the top, as damast numbers them
            if not king and is_white and row_sq <= ROW:
                king = True
            if not king and not is_white and row_sq > SQUARES - ROW:
                king = True
            (white if is_white else black).append(("K" if king else "") + str(sq))
        if white and black:
            side = rng.choice("WB")
            return f"{side}:W{','.join(white)}:B{','.join(black)}"


def canonical(fen):
    """A key of a FEN independent of the order of its squares."""
    side, *sections = fen.split(":")
    parts = []
    for s in sections:
        items = sorted(x for x in s[1:].split(",") if x)
        parts.append(s[0] + ",".join(items))
    return side + ":" + ":".join(sorted(parts))


def positions(rng, target):
    """Yields pydraughts boards: about half from random games from the start position, half from
    random placements of men and kings followed by a few random moves."""
    seen = set()
    count = 0
    from_placements = 0
    while count < target:
        placement = from_placements * 2 < count
        if placement:
            board = Board(variant=VARIANT, fen=random_placement(rng))
            plies = rng.randint(0, 6)
        else:
            board = Board(variant=VARIANT)
            plies = rng.randint(20, 140)
        for _ in range(plies + 1):
            key = canonical(board.fen)
            if key not in seen:
                seen.add(key)
                count += 1
                from_placements += placement
                yield board
                if count >= target:
                    return
            legal = board.legal_moves()
            if not legal:
                break
            board.push(rng.choice(legal))


def main():
    global DAMAST_VARIANT, VARIANT, SQUARES, ROW
    if len(sys.argv) < 2:
        print(
            "usage: pydraughts_moves.py DAMAST_BINARY [POSITIONS [SEED [VARIANT]]]",
            file=sys.stderr,
        )
        return 2
    if len(sys.argv) > 4:
        if sys.argv[4] not in VARIANTS:
            print(f"unknown variant {sys.argv[4]}: one of {' '.join(VARIANTS)}", file=sys.stderr)
            return 2
        DAMAST_VARIANT = sys.argv[4]
        VARIANT, SQUARES, ROW = VARIANTS[DAMAST_VARIANT]
    binary = sys.argv[1]
    target = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 20240601
    rng = random.Random(seed)
    passed = failed = 0
    kings = captures = 0
    start = time.time()
    for board in positions(rng, target):
        fen = board.fen
        try:
            expected = py_moves(board)
        except Exception as e:  # pydraughts itself failed: not a comparison
            print(f"SKIP {fen}: pydraughts error {e!r}")
            continue
        if "K" in fen:
            kings += 1
        if any(m[2] for m in expected):
            captures += 1
        try:
            listed = damast_moves(binary, fen)
        except Exception as e:
            failed += 1
            print(f"FAIL {fen}: {e}")
            continue
        actual = set(listed)
        problems = []
        if len(listed) != len(actual):
            problems.append(f"damast lists a move twice: {' '.join(fmt(m) for m in listed)}")
        if actual != expected:
            problems.append(
                f"missing in damast: [{fmt_set(expected - actual)}] "
                f"extra in damast: [{fmt_set(actual - expected)}] "
                f"pydraughts: [{fmt_set(expected)}] damast: [{fmt_set(actual)}]"
            )
        if problems:
            failed += 1
            print(f"FAIL {fen}: " + "; ".join(problems))
        else:
            passed += 1
    elapsed = time.time() - start
    print(
        f"# {passed + failed} positions ({kings} with kings, {captures} with captures) "
        f"in {elapsed:.1f} s, seed {seed}, {DAMAST_VARIANT}"
    )
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
