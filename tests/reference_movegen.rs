//! Differential test of the move generator against a deliberately simple reference generator.
//!
//! The reference below is written independently of the library: a mailbox board (a 2-D array of
//! cells indexed by row and column), its own square numbering, and a plain recursive capture search
//! that walks the board square by square. It implements every variant the engine plays as a few
//! plain rule switches: international draughts (10x10), brazilian (the same rules on 8x8), russian
//! (free choice of capture, a man reaching the far row during a capture is crowned at once and
//! goes on capturing as a flying king), english (men capture forward only, kings move one
//! square, free choice), italian (a1 light, men never take kings, the four Italian priorities),
//! spanish (a1 light, most pieces then most kings), pool (russian without the crowning
//! mid-capture), czech (a king must capture when one can) and platform dama (10x10, most pieces
//! then most kings, each captured piece removed as it is jumped) and filipino (brazilian's rules
//! under its own name). Platform dama and filipino have no published perft, so this comparison is
//! their main check.
//!
//! Both generators are run on positions reached by random play from the start position and on
//! random placements of men and kings; their move sets, as sorted sets of
//! (from, to, sorted captured squares), must be equal. The pseudo-random generator is a fixed
//! SplitMix64, so every failure reproduces; the FEN of the first mismatching position is printed.
//!
//! `DAMAST_REF_SCALE=N` multiplies the number of positions (default 1) for a longer run.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use damast::core::{fen, movegen, Color, Piece, Position, Square, Variant};
use damast::core::{
    Brazilian, Czech, English, Filipino, International, Italian, Platform, Pool, Russian, Spanish,
    Thai,
};

// ---------------------------------------------------------------------------------------------
// Deterministic PRNG
// ---------------------------------------------------------------------------------------------

struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    fn next(&mut self) -> u64 {
        // SplitMix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }
}

// ---------------------------------------------------------------------------------------------
// The reference generator
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Side {
    White,
    Black,
}

impl Side {
    fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cell {
    Empty,
    Man(Side),
    King(Side),
}

impl Cell {
    fn side(self) -> Option<Side> {
        match self {
            Cell::Empty => None,
            Cell::Man(s) | Cell::King(s) => Some(s),
        }
    }
}

/// How the reference chooses among complete captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Choice {
    /// Any complete capture.
    Free,
    /// The most pieces.
    Majority,
    /// The most pieces, then the most kings.
    MajorityThenKings,
    /// A king's capture whenever a king can capture.
    KingFirst,
    /// Most pieces; then with a king; then most kings; then the king met earliest.
    Italian,
}

/// The rule switches the reference understands.
#[derive(Clone, Copy, Debug)]
struct Rules {
    /// Board size: 10 or 8.
    size: i32,
    /// The capture rule.
    choice: Choice,
    /// Whether a man reaching the far row during a capture is crowned at once (russian).
    promote_mid_capture: bool,
    /// Whether men capture backward.
    men_backward: bool,
    /// Whether kings move and capture at a distance.
    flying: bool,
    /// Whether men may capture kings.
    men_take_kings: bool,
    /// Whether a captured piece leaves the board as soon as it is jumped.
    immediate: bool,
    /// Whether the bottom-left corner is light (italian, spanish): square 1 is then the
    /// top-left corner.
    a1_light: bool,
    /// Whether a capturing flying king lands right behind the piece it takes (thai).
    king_lands_behind: bool,
}

const INTERNATIONAL: Rules = Rules {
    size: 10,
    choice: Choice::Majority,
    promote_mid_capture: false,
    men_backward: true,
    flying: true,
    men_take_kings: true,
    immediate: false,
    a1_light: false,
    king_lands_behind: false,
};
const BRAZILIAN: Rules = Rules {
    size: 8,
    ..INTERNATIONAL
};
const RUSSIAN: Rules = Rules {
    choice: Choice::Free,
    promote_mid_capture: true,
    ..BRAZILIAN
};
const ENGLISH: Rules = Rules {
    choice: Choice::Free,
    men_backward: false,
    flying: false,
    ..BRAZILIAN
};
const ITALIAN: Rules = Rules {
    choice: Choice::Italian,
    men_take_kings: false,
    a1_light: true,
    ..ENGLISH
};
const SPANISH: Rules = Rules {
    choice: Choice::MajorityThenKings,
    men_backward: false,
    a1_light: true,
    ..BRAZILIAN
};
const POOL: Rules = Rules {
    choice: Choice::Free,
    ..BRAZILIAN
};
const CZECH: Rules = Rules {
    choice: Choice::KingFirst,
    men_backward: false,
    ..BRAZILIAN
};
const PLATFORM: Rules = Rules {
    choice: Choice::MajorityThenKings,
    immediate: true,
    ..INTERNATIONAL
};
const THAI: Rules = Rules {
    choice: Choice::Free,
    men_backward: false,
    immediate: true,
    king_lands_behind: true,
    ..BRAZILIAN
};

/// The four diagonal directions as (row, col) steps; row 0 is the top row (Black's back row).
const DIRS: [(i32, i32); 4] = [(-1, -1), (-1, 1), (1, -1), (1, 1)];

/// A mailbox board: `cells[row][col]`, row 0 at the top (seen from White), col 0 at the left.
#[derive(Clone)]
struct Board {
    rules: Rules,
    cells: [[Cell; 10]; 10],
    side: Side,
}

/// A reference move: 1-based from and to numbers, sorted captured numbers, and whether it crowns;
/// for the capture rules, whether a king made it and, in the order taken, which pieces taken
/// were kings.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct RefMove {
    from: u32,
    to: u32,
    captured: Vec<u32>,
    promotes: bool,
    by_king: bool,
    kings_taken: Vec<bool>,
}

impl RefMove {
    /// Whether `self` beats `other` by the capture rule `choice` (captures only).
    fn cmp_by(&self, other: &RefMove, choice: Choice) -> std::cmp::Ordering {
        let n = |m: &RefMove| m.captured.len();
        let kings = |m: &RefMove| m.kings_taken.iter().filter(|&&k| k).count();
        match choice {
            Choice::Free => std::cmp::Ordering::Equal,
            Choice::Majority => n(self).cmp(&n(other)),
            Choice::MajorityThenKings => (n(self), kings(self)).cmp(&(n(other), kings(other))),
            Choice::KingFirst => self.by_king.cmp(&other.by_king),
            Choice::Italian => {
                // the first position where one meets a king and the other does not decides
                (n(self), self.by_king, kings(self))
                    .cmp(&(n(other), other.by_king, kings(other)))
                    .then_with(|| self.kings_taken.cmp(&other.kings_taken))
            }
        }
    }
}

impl Board {
    fn empty(rules: Rules, side: Side) -> Board {
        Board {
            rules,
            cells: [[Cell::Empty; 10]; 10],
            side,
        }
    }

    /// Squares per row.
    fn half(&self) -> i32 {
        self.rules.size / 2
    }

    /// Row and column of the 1-based square number: square 1 is the first dark square of the top
    /// row, which is in column 1 (the top-left corner is light; on an a1-light board it is dark
    /// and square 1 is in column 0); the rows alternate.
    fn coords(&self, number: u32) -> (i32, i32) {
        let i = number as i32 - 1;
        let row = i / self.half();
        let k = i % self.half();
        let col = if (row % 2 == 0) != self.rules.a1_light {
            2 * k + 1
        } else {
            2 * k
        };
        (row, col)
    }

    /// The 1-based number of a dark square.
    fn number(&self, row: i32, col: i32) -> u32 {
        debug_assert!(self.dark(row, col));
        (row * self.half() + col / 2 + 1) as u32
    }

    fn on_board(&self, row: i32, col: i32) -> bool {
        row >= 0 && col >= 0 && row < self.rules.size && col < self.rules.size
    }

    fn dark(&self, row: i32, col: i32) -> bool {
        ((row + col) % 2 == 1) != self.rules.a1_light
    }

    fn at(&self, row: i32, col: i32) -> Cell {
        self.cells[row as usize][col as usize]
    }

    fn set(&mut self, row: i32, col: i32, c: Cell) {
        self.cells[row as usize][col as usize] = c;
    }

    /// The row where a man of `side` is crowned.
    fn far_row(&self, side: Side) -> i32 {
        match side {
            Side::White => 0,
            Side::Black => self.rules.size - 1,
        }
    }

    /// The row direction in which a man of `side` moves forward.
    fn forward(side: Side) -> i32 {
        match side {
            Side::White => -1,
            Side::Black => 1,
        }
    }

    /// Every legal move of the side to move.
    fn legal_moves(&self) -> Vec<RefMove> {
        let mut captures: Vec<RefMove> = Vec::new();
        for row in 0..self.rules.size {
            for col in 0..self.rules.size {
                if !self.dark(row, col) {
                    continue;
                }
                let cell = self.at(row, col);
                if cell.side() != Some(self.side) {
                    continue;
                }
                let king = matches!(cell, Cell::King(_));
                // The moving piece has left its square for the whole move.
                let mut work = self.clone();
                work.set(row, col, Cell::Empty);
                let mut captured: Vec<(i32, i32, bool)> = Vec::new();
                work.capture_search(
                    (self.number(row, col), king),
                    row,
                    col,
                    king,
                    false,
                    None,
                    &mut captured,
                    &mut captures,
                );
            }
        }
        if !captures.is_empty() {
            let choice = self.rules.choice;
            let best = captures
                .iter()
                .max_by(|a, b| a.cmp_by(b, choice))
                .unwrap()
                .clone();
            captures.retain(|m| m.cmp_by(&best, choice) == std::cmp::Ordering::Equal);
            captures.sort();
            return captures;
        }
        let mut quiet = Vec::new();
        for row in 0..self.rules.size {
            for col in 0..self.rules.size {
                if !self.dark(row, col) {
                    continue;
                }
                let cell = self.at(row, col);
                if cell.side() != Some(self.side) {
                    continue;
                }
                let from = self.number(row, col);
                match cell {
                    Cell::Man(s) => {
                        let r = row + Self::forward(s);
                        for dc in [-1, 1] {
                            let c = col + dc;
                            if self.on_board(r, c) && self.at(r, c) == Cell::Empty {
                                quiet.push(RefMove {
                                    from,
                                    to: self.number(r, c),
                                    captured: Vec::new(),
                                    promotes: r == self.far_row(s),
                                    by_king: false,
                                    kings_taken: Vec::new(),
                                });
                            }
                        }
                    }
                    Cell::King(_) => {
                        for (dr, dc) in DIRS {
                            let (mut r, mut c) = (row + dr, col + dc);
                            while self.on_board(r, c) && self.at(r, c) == Cell::Empty {
                                quiet.push(RefMove {
                                    from,
                                    to: self.number(r, c),
                                    captured: Vec::new(),
                                    promotes: false,
                                    by_king: false,
                                    kings_taken: Vec::new(),
                                });
                                if !self.rules.flying {
                                    break;
                                }
                                r += dr;
                                c += dc;
                            }
                        }
                    }
                    Cell::Empty => unreachable!(),
                }
            }
        }
        quiet.sort();
        quiet
    }

    /// Whether the square holds an enemy piece that has not been jumped yet in this move (and that
    /// the piece, a king if `king`, may take).
    fn jumpable(&self, row: i32, col: i32, king: bool, captured: &[(i32, i32, bool)]) -> bool {
        let cell = self.at(row, col);
        cell.side() == Some(self.side.other())
            && (king || self.rules.men_take_kings || matches!(cell, Cell::Man(_)))
            && !captured.iter().any(|&(r, c, _)| (r, c) == (row, col))
    }

    /// The directions a piece (a king if `king`) captures in.
    fn capture_dirs(&self, king: bool) -> Vec<(i32, i32)> {
        DIRS.iter()
            .copied()
            .filter(|&(dr, _)| king || self.rules.men_backward || dr == Self::forward(self.side))
            .collect()
    }

    /// Whether a piece (a king if `king`) standing on (row, col) in the middle of a capture that
    /// has taken `captured` can jump another piece; `back` is the direction it may not turn
    /// back in.
    fn can_capture_from(
        &self,
        row: i32,
        col: i32,
        king: bool,
        back: Option<(i32, i32)>,
        captured: &[(i32, i32, bool)],
    ) -> bool {
        for (dr, dc) in self.capture_dirs(king) {
            if Some((dr, dc)) == back {
                continue;
            }
            let (mut r, mut c) = (row + dr, col + dc);
            if king && self.rules.flying {
                while self.on_board(r, c) && self.at(r, c) == Cell::Empty {
                    r += dr;
                    c += dc;
                }
            }
            let (lr, lc) = (r + dr, c + dc);
            if self.on_board(lr, lc)
                && self.jumpable(r, c, king, captured)
                && self.at(lr, lc) == Cell::Empty
            {
                return true;
            }
        }
        false
    }

    /// Extends a capture whose piece now stands on (row, col) having taken `captured` (still on the
    /// board unless pieces are removed at once). `mover` is the start square and whether a king
    /// moves; `came` the direction of the last jump (a capture never turns straight back).
    /// Records the move when it cannot go on.
    #[allow(clippy::too_many_arguments)]
    fn capture_search(
        &self,
        mover: (u32, bool),
        row: i32,
        col: i32,
        king: bool,
        crowned: bool,
        came: Option<(i32, i32)>,
        captured: &mut Vec<(i32, i32, bool)>,
        out: &mut Vec<RefMove>,
    ) {
        let mut continued = false;
        let back = came.map(|(dr, dc)| (-dr, -dc));
        for (dr, dc) in self.capture_dirs(king) {
            if Some((dr, dc)) == back {
                continue;
            }
            // Slide (flying kings only) over empty squares to the first piece.
            let (mut r, mut c) = (row + dr, col + dc);
            if king && self.rules.flying {
                while self.on_board(r, c) && self.at(r, c) == Cell::Empty {
                    r += dr;
                    c += dc;
                }
            }
            if !self.on_board(r, c) || !self.jumpable(r, c, king, captured) {
                continue;
            }
            let (vr, vc) = (r, c);
            let victim_king = matches!(self.at(vr, vc), Cell::King(_));
            // The board for the rest of the move: the victim stays as a blocker, or goes at once.
            let mut next = self.clone();
            if self.rules.immediate {
                next.set(vr, vc, Cell::Empty);
            }
            let mut landings = Vec::new();
            let (mut lr, mut lc) = (vr + dr, vc + dc);
            while self.on_board(lr, lc) && self.at(lr, lc) == Cell::Empty {
                landings.push((lr, lc));
                if !(king && self.rules.flying) || self.rules.king_lands_behind {
                    break;
                }
                lr += dr;
                lc += dc;
            }
            if landings.is_empty() {
                continue;
            }
            captured.push((vr, vc, victim_king));
            if king {
                // A king must land where it can go on capturing if there is such a square.
                let going_on: Vec<(i32, i32)> = landings
                    .iter()
                    .copied()
                    .filter(|&(r, c)| next.can_capture_from(r, c, true, Some((-dr, -dc)), captured))
                    .collect();
                if !going_on.is_empty() {
                    landings = going_on;
                }
                for (lr, lc) in landings {
                    continued = true;
                    next.capture_search(
                        mover,
                        lr,
                        lc,
                        true,
                        crowned,
                        Some((dr, dc)),
                        captured,
                        out,
                    );
                }
            } else {
                let (lr, lc) = landings[0];
                continued = true;
                let reaches_far_row = lr == self.far_row(self.side);
                if self.rules.promote_mid_capture && reaches_far_row {
                    next.capture_search(mover, lr, lc, true, true, Some((dr, dc)), captured, out);
                } else {
                    next.capture_search(mover, lr, lc, false, false, Some((dr, dc)), captured, out);
                }
            }
            captured.pop();
        }
        if !continued && !captured.is_empty() {
            let mut caps: Vec<u32> = captured
                .iter()
                .map(|&(r, c, _)| self.number(r, c))
                .collect();
            caps.sort();
            let promotes = crowned || (!king && row == self.far_row(self.side));
            let m = RefMove {
                from: mover.0,
                to: self.number(row, col),
                captured: caps,
                promotes,
                by_king: mover.1,
                kings_taken: captured.iter().map(|&(_, _, k)| k).collect(),
            };
            if !out.contains(&m) {
                out.push(m);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Comparison with the library
// ---------------------------------------------------------------------------------------------

fn to_board<V: Variant>(pos: &Position<V>, rules: Rules) -> Board {
    assert_eq!(rules.size as u32, V::ROWS);
    let side = match pos.side() {
        Color::White => Side::White,
        Color::Black => Side::Black,
    };
    let mut b = Board::empty(rules, side);
    for n in 1..=V::SQUARES {
        let sq = Square::from_number(n, V::SQUARES).unwrap();
        let cell = match pos.piece_at(sq) {
            None => Cell::Empty,
            Some(Piece::WhiteMan) => Cell::Man(Side::White),
            Some(Piece::BlackMan) => Cell::Man(Side::Black),
            Some(Piece::WhiteKing) => Cell::King(Side::White),
            Some(Piece::BlackKing) => Cell::King(Side::Black),
        };
        let (r, c) = b.coords(n);
        b.set(r, c, cell);
    }
    b
}

type Key = (u32, u32, Vec<u32>);

fn key_text(k: &Key) -> String {
    let mut s = String::new();
    if k.2.is_empty() {
        let _ = write!(s, "{}-{}", k.0, k.1);
    } else {
        let _ = write!(s, "{}x{}", k.0, k.1);
        for c in &k.2 {
            let _ = write!(s, "x{c}");
        }
    }
    s
}

fn keys_text<'a>(keys: impl Iterator<Item = &'a Key>) -> String {
    keys.map(key_text).collect::<Vec<_>>().join(" ")
}

/// Compares the library with the reference on one position; returns a description of any
/// disagreement.
fn check<V: Variant>(pos: &Position<V>, rules: Rules) -> Option<String> {
    let board = to_board(pos, rules);
    let reference = board.legal_moves();
    // Promotion flags the reference allows for each move (a move merged from several paths may in
    // principle crown on one and not on another).
    let mut expected: BTreeMap<Key, BTreeSet<bool>> = BTreeMap::new();
    for m in &reference {
        expected
            .entry((m.from, m.to, m.captured.clone()))
            .or_default()
            .insert(m.promotes);
    }
    let list = movegen::legal_moves(pos);
    let mut actual: BTreeSet<Key> = BTreeSet::new();
    let mut duplicates = Vec::new();
    let mut problems = Vec::new();
    for m in list.iter() {
        let k: Key = (
            m.from().number(),
            m.to().number(),
            m.captured_squares().map(|s| s.number()).collect::<Vec<_>>(),
        );
        let mut sorted = k.2.clone();
        sorted.sort();
        if sorted != k.2 {
            problems.push(format!(
                "captured squares not ascending in {}",
                key_text(&k)
            ));
        }
        if m.is_capture() == k.2.is_empty() {
            problems.push(format!("is_capture() wrong for {}", key_text(&k)));
        }
        if let Some(flags) = expected.get(&k) {
            if !flags.contains(&m.is_promotion()) {
                problems.push(format!(
                    "is_promotion() = {} for {}, reference says {:?}",
                    m.is_promotion(),
                    key_text(&k),
                    flags
                ));
            }
        }
        if !actual.insert(k.clone()) {
            duplicates.push(k.clone());
        }
        // The position after the move: mover on `to` (crowned if it promotes), captured pieces
        // gone, everything else unchanged, the other side to move.
        let after = pos.make(m);
        let mover = pos.piece_at(m.from()).expect("no piece on the from square");
        let moved = Piece::new(mover.color(), mover.is_king() || m.is_promotion());
        if after.side() != pos.side().opponent() {
            problems.push(format!("side to move not switched after {}", key_text(&k)));
        }
        if after.hash() != after.compute_hash() {
            problems.push(format!("incremental hash wrong after {}", key_text(&k)));
        }
        for n in 1..=V::SQUARES {
            let sq = Square::from_number(n, V::SQUARES).unwrap();
            let want = if n == k.1 {
                Some(moved)
            } else if n == k.0 || k.2.contains(&n) {
                None
            } else {
                pos.piece_at(sq)
            };
            if after.piece_at(sq) != want {
                problems.push(format!(
                    "after {}: square {} holds {:?}, expected {:?}",
                    key_text(&k),
                    n,
                    after.piece_at(sq),
                    want
                ));
                break;
            }
        }
    }
    let exp_keys: BTreeSet<Key> = expected.keys().cloned().collect();
    if exp_keys == actual && duplicates.is_empty() && problems.is_empty() {
        return None;
    }
    let mut s = String::new();
    let _ = writeln!(s, "variant {:?}, FEN {}", V::KIND, fen::write(pos));
    let _ = writeln!(s, "{pos}");
    if exp_keys != actual {
        let _ = writeln!(s, "  expected (reference): {}", keys_text(exp_keys.iter()));
        let _ = writeln!(s, "  actual (library):     {}", keys_text(actual.iter()));
        let _ = writeln!(
            s,
            "  missing in library:   {}",
            keys_text(exp_keys.difference(&actual))
        );
        let _ = writeln!(
            s,
            "  extra in library:     {}",
            keys_text(actual.difference(&exp_keys))
        );
    }
    if !duplicates.is_empty() {
        let _ = writeln!(
            s,
            "  listed twice by the library: {}",
            keys_text(duplicates.iter())
        );
    }
    for p in problems {
        let _ = writeln!(s, "  {p}");
    }
    Some(s)
}

/// Counts of a run, and the first failures.
#[derive(Default)]
struct Report {
    positions: usize,
    with_kings: usize,
    captures: usize,
    failures: Vec<String>,
    failed: usize,
}

impl Report {
    fn record<V: Variant>(&mut self, pos: &Position<V>, rules: Rules) {
        self.positions += 1;
        if pos.all_kings().any() {
            self.with_kings += 1;
        }
        if movegen::has_capture(pos) {
            self.captures += 1;
        }
        if let Some(f) = check(pos, rules) {
            self.failed += 1;
            if self.failures.len() < 5 {
                self.failures.push(f);
            }
        }
    }

    fn finish(&self, name: &str) {
        eprintln!(
            "{name}: {} positions ({} with kings, {} with captures), {} mismatches",
            self.positions, self.with_kings, self.captures, self.failed
        );
        if self.failed > 0 {
            panic!(
                "{name}: the library disagrees with the reference on {} of {} positions; first mismatch(es):\n{}",
                self.failed,
                self.positions,
                self.failures.join("\n")
            );
        }
    }
}

fn scale() -> usize {
    std::env::var("DAMAST_REF_SCALE")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1)
        .max(1)
}

/// Plays random games from the start position and checks every position on the way.
fn random_games<V: Variant>(
    rules: Rules,
    seed: u64,
    games: usize,
    max_plies: usize,
    report: &mut Report,
) {
    let mut rng = Rng::new(seed);
    for _ in 0..games {
        let mut pos = Position::<V>::start();
        for _ in 0..max_plies {
            report.record(&pos, rules);
            let list = movegen::legal_moves(&pos);
            if list.is_empty() {
                break;
            }
            let m = list[rng.below(list.len())];
            pos = pos.make(&m);
        }
    }
}

/// A random placement of men and kings of both sides, or None if it is not a valid position.
fn random_placement<V: Variant>(rng: &mut Rng) -> Option<Position<V>> {
    let n = V::SQUARES as usize;
    let mut squares: Vec<u32> = (1..=V::SQUARES).collect();
    // Partial Fisher-Yates shuffle.
    let total = rng.range(2, n * 3 / 5);
    for i in 0..total {
        let j = i + rng.below(n - i);
        squares.swap(i, j);
    }
    let king_share = rng.below(4); // 0: few kings .. 3: many kings
    let mut pieces = Vec::with_capacity(total);
    for (i, &num) in squares[..total].iter().enumerate() {
        let color = if i % 2 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let king = rng.below(6) < king_share + 1 && rng.below(2) == 0 || rng.below(12) == 0;
        pieces.push((
            Square::from_number(num, V::SQUARES).unwrap(),
            Piece::new(color, king),
        ));
    }
    let side = if rng.below(2) == 0 {
        Color::White
    } else {
        Color::Black
    };
    Position::from_pieces(&pieces, side).ok()
}

/// Checks random placements, and a few random plies from each.
fn random_placements<V: Variant>(
    rules: Rules,
    seed: u64,
    count: usize,
    plies: usize,
    report: &mut Report,
) {
    let mut rng = Rng::new(seed);
    let mut made = 0;
    let mut tries = 0;
    while made < count {
        tries += 1;
        assert!(tries < count * 100, "too many invalid placements");
        let Some(mut pos) = random_placement::<V>(&mut rng) else {
            continue;
        };
        made += 1;
        for _ in 0..=plies {
            report.record(&pos, rules);
            let list = movegen::legal_moves(&pos);
            if list.is_empty() {
                break;
            }
            let m = list[rng.below(list.len())];
            pos = pos.make(&m);
        }
    }
}

fn run<V: Variant>(name: &str, rules: Rules, seed: u64) {
    let k = scale();
    let mut games = Report::default();
    random_games::<V>(rules, seed, 300 * k, 200, &mut games);
    games.finish(&format!("{name} random games"));
    let mut placed = Report::default();
    random_placements::<V>(rules, seed ^ 0xABCD, 8000 * k, 3, &mut placed);
    placed.finish(&format!("{name} random placements"));
    assert!(
        games.positions >= 1000,
        "too few positions from random games"
    );
    assert!(placed.with_kings >= 1000, "too few positions with kings");
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[test]
fn international_matches_reference() {
    run::<International>("international", INTERNATIONAL, 1);
}

#[test]
fn brazilian_matches_reference() {
    run::<Brazilian>("brazilian", BRAZILIAN, 2);
}

#[test]
fn russian_matches_reference() {
    run::<Russian>("russian", RUSSIAN, 3);
}

#[test]
fn english_matches_reference() {
    run::<English>("english", ENGLISH, 4);
}

#[test]
fn italian_matches_reference() {
    run::<Italian>("italian", ITALIAN, 5);
}

#[test]
fn spanish_matches_reference() {
    run::<Spanish>("spanish", SPANISH, 6);
}

#[test]
fn pool_matches_reference() {
    run::<Pool>("pool", POOL, 7);
}

#[test]
fn czech_matches_reference() {
    run::<Czech>("czech", CZECH, 8);
}

#[test]
fn filipino_matches_reference() {
    run::<Filipino>("filipino", BRAZILIAN, 10);
}

#[test]
fn thai_matches_reference() {
    run::<Thai>("thai", THAI, 11);
}

#[test]
fn platform_matches_reference() {
    run::<Platform>("platform", PLATFORM, 9);
}

/// The reference itself on hand-checked positions (so that a bug in it is not mistaken for
/// agreement or disagreement).
#[test]
fn reference_sanity() {
    fn moves<V: Variant>(rules: Rules, f: &str) -> Vec<String> {
        let pos: Position<V> = fen::parse(f).unwrap();
        let mut v: Vec<String> = to_board(&pos, rules)
            .legal_moves()
            .iter()
            .map(|m| key_text(&(m.from, m.to, m.captured.clone())))
            .collect();
        v.sort();
        v
    }
    // Start positions: 9 moves in international, 7 on 8x8.
    let p = Position::<International>::start();
    assert_eq!(to_board(&p, INTERNATIONAL).legal_moves().len(), 9);
    let p = Position::<Russian>::start();
    assert_eq!(to_board(&p, RUSSIAN).legal_moves().len(), 7);
    // Square numbering: 46 is the bottom-left corner, 5 the top-right (international).
    let b = Board::empty(INTERNATIONAL, Side::White);
    assert_eq!(b.coords(46), (9, 0));
    assert_eq!(b.coords(5), (0, 9));
    assert_eq!(b.coords(1), (0, 1));
    let b = Board::empty(RUSSIAN, Side::White);
    assert_eq!(b.coords(29), (7, 0));
    assert_eq!(b.coords(4), (0, 7));
    // Man moves and backward capture.
    assert_eq!(
        moves::<International>(INTERNATIONAL, "W:W28:B"),
        ["28-22", "28-23"]
    );
    assert_eq!(
        moves::<International>(INTERNATIONAL, "W:W28:B33"),
        ["28x39x33"]
    );
    // Flying king capture lands on any square beyond.
    assert_eq!(
        moves::<International>(INTERNATIONAL, "W:WK46:B28"),
        ["46x10x28", "46x14x28", "46x19x28", "46x23x28", "46x5x28"]
    );
    // Majority: the double capture is compulsory.
    assert_eq!(
        moves::<International>(INTERNATIONAL, "W:W28:B23,33,13"),
        ["28x8x13x23"]
    );
    // Ambiguous king captures with the same from and to (notation test position).
    assert_eq!(
        moves::<International>(INTERNATIONAL, "W:WK4:B13,32,37,20"),
        ["4x15x13x20x32", "4x15x13x20x37"]
    );
    // A man passing the far row mid-capture: brazilian keeps it a man (it goes on capturing
    // backward as a man); russian crowns it at once and it goes on as a flying king.
    let b = to_board(&fen::parse::<Brazilian>("W:W9:B6,7").unwrap(), BRAZILIAN);
    let l = b.legal_moves();
    assert_eq!(l.len(), 1);
    assert_eq!(
        (l[0].from, l[0].to, l[0].captured.clone(), l[0].promotes),
        (9, 11, vec![6, 7], false)
    );
    let b = to_board(&fen::parse::<Russian>("W:W9:B6,7").unwrap(), RUSSIAN);
    let l = b.legal_moves();
    let got: Vec<(u32, u32, Vec<u32>, bool)> = l
        .iter()
        .map(|m| (m.from, m.to, m.captured.clone(), m.promotes))
        .collect();
    assert_eq!(
        got,
        [
            (9, 11, vec![6, 7], true),
            (9, 16, vec![6, 7], true),
            (9, 20, vec![6, 7], true)
        ]
    );
    // Crowned mid-capture, the russian king captures at a distance; a brazilian man stops.
    assert_eq!(moves::<Russian>(RUSSIAN, "W:W9:B6,16"), ["9x20x6x16"]);
    assert_eq!(moves::<Brazilian>(BRAZILIAN, "W:W9:B6,16"), ["9x2x6"]);
    // Russian: a king must land where it can go on capturing if there is such a square (free
    // choice does not allow stopping early).
    assert_eq!(
        moves::<Russian>(RUSSIAN, "W:WK20,21,25,27,28,29,30,31:B1,8,16"),
        ["20x4x8x16"]
    );
    // Free choice in russian: the single capture is legal beside the double one.
    assert_eq!(
        moves::<Russian>(RUSSIAN, "W:W22:B18,10,26"),
        ["22x31x26", "22x6x10x18"]
    );
}

/// The legal moves of `f` as key texts, sorted, after checking that the library and the
/// reference under `rules` agree on them.
fn agreed<V: Variant>(rules: Rules, f: &str) -> Vec<String> {
    let pos: Position<V> = fen::parse(f).unwrap();
    let mut lib: Vec<String> = movegen::legal_moves(&pos)
        .iter()
        .map(|m| {
            let caps: Vec<u32> = m.captured_squares().map(|s| s.number()).collect();
            key_text(&(m.from().number(), m.to().number(), caps))
        })
        .collect();
    lib.sort();
    assert_eq!(
        lib,
        reference_keys(&pos, rules),
        "library and reference differ on {f}"
    );
    lib
}

/// The reference's legal moves of `pos` under `rules` as key texts, sorted.
fn reference_keys<V: Variant>(pos: &Position<V>, rules: Rules) -> Vec<String> {
    let mut reference: Vec<String> = to_board(pos, rules)
        .legal_moves()
        .iter()
        .map(|m| key_text(&(m.from, m.to, m.captured.clone())))
        .collect();
    reference.sort();
    reference
}

/// Hand-made platform dama cases, each checked against the library and the reference.
#[test]
fn platform_king_priority_and_immediate_removal() {
    let both = |f: &str| agreed::<Platform>(PLATFORM, f);
    let intl = |f: &str| -> Vec<String> {
        let pos: Position<International> = fen::parse(f).unwrap();
        let mut v: Vec<String> = movegen::legal_moves(&pos)
            .iter()
            .map(|m| {
                let caps: Vec<u32> = m.captured_squares().map(|s| s.number()).collect();
                key_text(&(m.from().number(), m.to().number(), caps))
            })
            .collect();
        v.sort();
        v
    };
    // King priority: the man on 33 can take the man on 28 or the king on 29, one piece either
    // way. International draughts leaves the choice; platform dama must take the king.
    assert_eq!(intl("W:W33:B28,K29"), ["33x22x28", "33x24x29"]);
    assert_eq!(both("W:W33:B28,K29"), ["33x24x29"]);
    // Still the number of pieces comes first: two men beat one king.
    assert_eq!(both("W:W33:B28,K29,18"), ["33x13x18x28"]);
    // Immediate removal: under the FMJD rule the black king on 25 is stopped by the white
    // pieces it has already jumped, which stay on the board until the move ends, and takes four
    // (25x33). In platform dama each jumped piece goes at once, so the king crosses the squares
    // it has emptied and takes all five, ending on 42 or 47.
    assert_eq!(intl("B:W27,28,38,39,42:BK25"), ["25x33x27x28x39x42"]);
    assert_eq!(
        both("B:W27,28,38,39,42:BK25"),
        ["25x42x27x28x38x39x42", "25x47x27x28x38x39x42"]
    );
    // Black moves first from the initial position.
    assert_eq!(Position::<Platform>::start().side(), Color::Black);
}

/// Hand-made thai cases, each checked against the library and the reference.
#[test]
fn thai_king_lands_behind_and_immediate_removal() {
    // The black king on 5 takes the man on 18 from a distance. In pool checkers it may land on
    // any empty square beyond (23, 27, 32); in thai only right behind the man, on 23.
    assert_eq!(agreed::<Thai>(THAI, "B:W18:BK5"), ["5x23x18"]);
    assert_eq!(
        agreed::<Pool>(POOL, "B:W18:BK5"),
        ["5x23x18", "5x27x18", "5x32x18"]
    );
    // Immediate removal: the king on 29 takes 18 (landing on 15), 10 (on 6), 9 (on 13) and the
    // king on 17 (on 22); going up-right again it crosses 18, which left the board when it was
    // jumped, and the square 15, and takes 11, ending on 8: five pieces. (The choice is free,
    // so the short way, 18 then 11, is legal too.)
    let five = "B:W9,10,11,K17,18:BK29";
    assert_eq!(
        agreed::<Thai>(THAI, five),
        ["29x8x11x18", "29x8x9x10x11x17x18"]
    );
    // Were the jumped pieces to stay until the move ends, the man on 18 would block the way
    // and the king would stop on 22 after four.
    let kept = Rules {
        immediate: false,
        ..THAI
    };
    assert_eq!(
        reference_keys(&fen::parse::<Thai>(five).unwrap(), kept),
        ["29x22x9x10x17x18", "29x8x11x18"]
    );
    // 8 men each on the two nearest rows, black moves first, with 7 moves.
    let start = Position::<Thai>::start();
    assert_eq!(start.side(), Color::Black);
    assert_eq!(
        fen::write(&start),
        "B:W25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8"
    );
    assert_eq!(agreed::<Thai>(THAI, &fen::write(&start)).len(), 7);
}
