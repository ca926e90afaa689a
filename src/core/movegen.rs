//! Legal move generation over bitboards, generic over the [`Variant`].
//!
//! Quiet men moves are generated set-wise by shifts; flying kings use the precomputed rays of the
//! variant. Captures are found by a depth-first search in which captured pieces stay on the board
//! as blockers until the move ends, so that no piece is jumped twice; the majority rule and the
//! merging of paths with the same from, to and captured set are applied as sequences complete.

use crate::core::bitboard::Bitboard;
use crate::core::moves::{Move, MoveFlags, MoveList};
use crate::core::position::Position;
use crate::core::variant::{CaptureRule, Color, Variant};

pub(crate) const UP_LEFT: usize = 0;
pub(crate) const UP_RIGHT: usize = 1;
pub(crate) const DOWN_LEFT: usize = 2;
pub(crate) const DOWN_RIGHT: usize = 3;

/// One diagonal step of every square of `b` in direction `d`.
#[inline(always)]
pub(crate) fn step<V: Variant>(b: u64, d: usize) -> u64 {
    match d {
        UP_LEFT => b >> (V::HALF + 1),
        UP_RIGHT => b >> V::HALF,
        DOWN_LEFT => b << V::HALF,
        _ => b << (V::HALF + 1),
    }
}

/// `b` moved `n` squares along direction `d`. Unlike one [`step`], a longer move may cross the
/// board's edge onto a real square: the caller must know that the squares between are on the
/// board (the fill below does, as a ghost square is never empty).
#[inline(always)]
fn step_n<V: Variant>(b: u64, d: usize, n: u32) -> u64 {
    match d {
        UP_LEFT => b >> ((V::HALF + 1) * n),
        UP_RIGHT => b >> (V::HALF * n),
        DOWN_LEFT => b << (V::HALF * n),
        _ => b << ((V::HALF + 1) * n),
    }
}

/// The squares `from` reaches by sliding along direction `d` over the `empty` squares, `from`
/// included: a branch-free occluded fill (Kogge-Stone) in doubling steps, as long as the
/// longest diagonal needs.
#[inline(always)]
fn slide_fill<V: Variant>(from: u64, empty: u64, d: usize) -> u64 {
    const {
        assert!(
            V::ROWS <= 16,
            "the fill covers diagonals of up to 16 squares"
        )
    };
    let (mut g, mut p) = (from, empty);
    g |= p & step_n::<V>(g, d, 1);
    p &= step_n::<V>(p, d, 1);
    g |= p & step_n::<V>(g, d, 2);
    p &= step_n::<V>(p, d, 2);
    g |= p & step_n::<V>(g, d, 4);
    if V::ROWS > 8 {
        p &= step_n::<V>(p, d, 4);
        g |= p & step_n::<V>(g, d, 8);
    }
    g
}

/// The square of `set` nearest along direction `d` (on a ray from some origin).
#[inline(always)]
fn nearest(set: u64, d: usize) -> u32 {
    if d <= UP_RIGHT {
        63 - set.leading_zeros()
    } else {
        set.trailing_zeros()
    }
}

/// The direction opposite to `d`.
#[inline(always)]
const fn opposite(d: usize) -> usize {
    3 - d
}

/// The forward directions of a man of `color`.
#[inline(always)]
const fn forward(color: Color) -> [usize; 2] {
    match color {
        Color::White => [UP_LEFT, UP_RIGHT],
        Color::Black => [DOWN_LEFT, DOWN_RIGHT],
    }
}

/// The squares a king on `from` reaches in direction `d` before the first piece of `occ`.
#[inline(always)]
fn king_reach<V: Variant>(from: u32, d: usize, occ: u64) -> u64 {
    let ray = V::RAYS[d][from as usize];
    if !V::FLYING_KINGS {
        return step::<V>(1u64 << from, d) & ray & !occ;
    }
    let blockers = ray & occ;
    if blockers == 0 {
        ray
    } else {
        let b = nearest(blockers, d);
        ray & !(V::RAYS[d][b as usize] | 1u64 << b)
    }
}

/// Receives complete capture sequences from the capture search.
pub(crate) trait CaptureSink<V: Variant> {
    /// Whether the search must keep the landing squares of the path.
    const PATHS: bool;
    /// A complete sequence: `path` holds its landing squares (bits) when `PATHS` is set; `rank`
    /// is its [`capture_rank`] (only the highest-ranked sequences are legal).
    fn found(
        &mut self,
        from: u32,
        to: u32,
        captured: u64,
        flags: MoveFlags,
        rank: u64,
        path: &[u8],
    );
}

/// How the variant's capture rule ranks a complete capture sequence: only the sequences of the
/// highest rank may be played (all rank 0 under free choice). `kings` is how many kings it takes,
/// `king_move` whether a king makes it, and `order` has bit `31 - k` set when the `k`-th piece
/// taken (from 0) is a king, so that a larger `order` meets a king earlier.
#[inline(always)]
pub(crate) fn capture_rank<V: Variant>(
    captured: u64,
    kings: u32,
    king_move: bool,
    order: u32,
) -> u64 {
    let n = captured.count_ones() as u64;
    match V::CAPTURE_RULE {
        CaptureRule::Free => 0,
        CaptureRule::Majority => n,
        CaptureRule::MajorityThenKings => n << 8 | kings as u64,
        CaptureRule::KingFirst => king_move as u64,
        CaptureRule::Italian => {
            n << 48 | (king_move as u64) << 40 | (kings as u64) << 32 | order as u64
        }
    }
}

/// The sink that fills a move list, applying the capture rule and merging equal moves.
struct ListSink<'a, V: Variant> {
    list: &'a mut MoveList<V>,
    best: u64,
}

impl<V: Variant> CaptureSink<V> for ListSink<'_, V> {
    const PATHS: bool = false;

    #[inline(always)]
    fn found(
        &mut self,
        from: u32,
        to: u32,
        captured: u64,
        flags: MoveFlags,
        rank: u64,
        _path: &[u8],
    ) {
        if V::CAPTURE_RULE != CaptureRule::Free {
            if rank < self.best {
                return;
            }
            if rank > self.best {
                self.best = rank;
                self.list.clear();
            }
        }
        // Two paths of a man can only take the same pieces between the same squares when they
        // go round a loop of at least four captures; kings can do so far more easily.
        let (f, t) = (from as u8, to as u8);
        if (captured.count_ones() >= 4 || flags.contains(MoveFlags::KING) || V::PROMOTE_MID_CAPTURE)
            && self
                .list
                .iter()
                .any(|m| m.captured.0 == captured && m.to == t && m.from == f)
        {
            return;
        }
        self.list
            .push(Move::new(from, to, Bitboard(captured), flags));
    }
}

/// State of the capture search for one moving piece.
pub(crate) struct CaptureSearch<'a, V: Variant, S: CaptureSink<V>> {
    from: u32,
    opp: u64,
    /// The opponent's pieces that men may take (not kings in italian).
    man_prey: u64,
    opp_kings: u64,
    /// Bit `31 - k` set when the `k`-th piece taken is a king (italian only).
    order: u32,
    empty: u64,
    sink: &'a mut S,
    path: [u8; 64],
    len: usize,
    _v: std::marker::PhantomData<V>,
}

impl<'a, V: Variant, S: CaptureSink<V>> CaptureSearch<'a, V, S> {
    /// Prepares a search for the pieces of the side to move in `pos`.
    #[inline(always)]
    pub(crate) fn new(pos: &Position<V>, sink: &'a mut S) -> Self {
        let them = pos.side().opponent();
        CaptureSearch {
            from: 0,
            opp: pos.pieces(them).0,
            man_prey: man_prey(pos),
            opp_kings: pos.kings(them).0,
            order: 0,
            empty: pos.empty().0,
            sink,
            path: [0; 64],
            len: 0,
            _v: std::marker::PhantomData,
        }
    }

    #[inline(always)]
    fn push(&mut self, b: u32) {
        if S::PATHS && self.len < self.path.len() {
            self.path[self.len] = b as u8;
            self.len += 1;
        }
    }

    #[inline(always)]
    fn pop(&mut self) {
        if S::PATHS {
            self.len -= 1;
        }
    }

    /// Records, for the italian priorities, that the piece `over` is taken after `captured`.
    #[inline(always)]
    fn note_prey(&mut self, over: u64, captured: u64) {
        if V::CAPTURE_RULE == CaptureRule::Italian && over & self.opp_kings != 0 {
            self.order |= 1 << (31 - captured.count_ones());
        }
    }

    /// Hands a complete sequence to the sink.
    #[inline(always)]
    fn complete(&mut self, cur: u32, captured: u64, flags: MoveFlags) {
        let kings = if V::CAPTURE_RULE == CaptureRule::MajorityThenKings
            || V::CAPTURE_RULE == CaptureRule::Italian
        {
            (captured & self.opp_kings).count_ones()
        } else {
            0
        };
        let king_move = flags.contains(MoveFlags::KING);
        let rank = capture_rank::<V>(captured, kings, king_move, self.order);
        let path = &self.path[..self.len];
        self.sink.found(self.from, cur, captured, flags, rank, path);
    }

    /// Searches every capture of the man on `from` (moving for `color`).
    #[inline(always)]
    pub(crate) fn man_from(&mut self, from: u32, color: Color) {
        self.from = from;
        self.empty |= 1u64 << from;
        self.man(from, 0, color);
        self.empty &= !(1u64 << from);
    }

    /// Searches every capture of the king on `from`.
    #[inline(always)]
    pub(crate) fn king_from(&mut self, from: u32) {
        self.from = from;
        self.empty |= 1u64 << from;
        self.king(from, 0, 4, false);
        self.empty &= !(1u64 << from);
    }

    /// Tries the jump of a man on `cur` in direction `d`; returns whether there was one.
    #[inline(always)]
    fn man_jump(&mut self, cur: u64, captured: u64, color: Color, d: usize) -> bool {
        let over = step::<V>(cur, d) & self.man_prey & !captured;
        if over == 0 {
            return false;
        }
        let land = step::<V>(over, d) & self.empty;
        if land == 0 {
            return false;
        }
        let lb = land.trailing_zeros();
        self.push(lb);
        let order = self.order;
        self.note_prey(over, captured);
        if V::IMMEDIATE_REMOVAL {
            self.empty |= over;
        }
        if V::PROMOTE_MID_CAPTURE && land & V::promotion_row(color).0 != 0 {
            self.king(lb, captured | over, d, true);
        } else {
            self.man(lb, captured | over, color);
        }
        if V::IMMEDIATE_REMOVAL {
            self.empty &= !over;
        }
        self.order = order;
        self.pop();
        true
    }

    fn man(&mut self, cur: u32, captured: u64, color: Color) {
        let curb = 1u64 << cur;
        let mut any = false;
        if V::MEN_CAPTURE_BACKWARD || color == Color::White {
            any |= self.man_jump(curb, captured, color, UP_LEFT);
            any |= self.man_jump(curb, captured, color, UP_RIGHT);
        }
        if V::MEN_CAPTURE_BACKWARD || color == Color::Black {
            any |= self.man_jump(curb, captured, color, DOWN_LEFT);
            any |= self.man_jump(curb, captured, color, DOWN_RIGHT);
        }
        if !any && captured != 0 {
            let flags = if curb & V::promotion_row(color).0 != 0 {
                MoveFlags::PROMOTION
            } else {
                MoveFlags::empty()
            };
            self.complete(cur, captured, flags);
        }
    }

    /// `prev` is the direction of the jump that led here (4 at the start); `promoted` marks a man
    /// crowned during this capture.
    fn king(&mut self, cur: u32, captured: u64, prev: usize, promoted: bool) {
        let mut any = false;
        for d in 0..4 {
            if prev < 4 && d == opposite(prev) {
                continue;
            }
            let ray = V::RAYS[d][cur as usize];
            let blockers = ray & !self.empty;
            if blockers == 0 {
                continue;
            }
            let b = nearest(blockers, d);
            let bb = 1u64 << b;
            if !V::FLYING_KINGS && bb != step::<V>(1u64 << cur, d) {
                continue;
            }
            if bb & self.opp & !captured == 0 {
                continue;
            }
            let lands = if V::FLYING_KINGS && !V::KING_LANDS_BEHIND {
                king_reach::<V>(b, d, !self.empty)
            } else {
                step::<V>(bb, d) & self.empty
            };
            if lands == 0 {
                continue;
            }
            any = true;
            if V::IMMEDIATE_REMOVAL {
                self.empty |= bb;
            }
            // A capture may not stop on a landing square while another landing square of the
            // same jump lets it go on: keep only the landings that continue, if there are any.
            let mut l = lands;
            if V::FLYING_KINGS && lands & (lands - 1) != 0 {
                let mut cont = 0;
                let mut t = lands;
                while t != 0 {
                    let lb = t.trailing_zeros();
                    t &= t - 1;
                    if self.king_can_continue(lb, captured | bb, d) {
                        cont |= 1u64 << lb;
                    }
                }
                if cont != 0 {
                    l = cont;
                }
            }
            let order = self.order;
            self.note_prey(bb, captured);
            while l != 0 {
                let lb = l.trailing_zeros();
                l &= l - 1;
                self.push(lb);
                self.king(lb, captured | bb, d, promoted);
                self.pop();
            }
            if V::IMMEDIATE_REMOVAL {
                self.empty &= !bb;
            }
            self.order = order;
        }
        if !any && captured != 0 {
            let flags = if promoted {
                MoveFlags::PROMOTION
            } else {
                MoveFlags::KING
            };
            self.complete(cur, captured, flags);
        }
    }
}

impl<V: Variant, S: CaptureSink<V>> CaptureSearch<'_, V, S> {
    /// Whether a king on `cur` that arrived by a jump in direction `prev` can capture again.
    #[inline(always)]
    fn king_can_continue(&self, cur: u32, captured: u64, prev: usize) -> bool {
        for d in 0..4 {
            if d == opposite(prev) {
                continue;
            }
            let blockers = V::RAYS[d][cur as usize] & !self.empty;
            if blockers == 0 {
                continue;
            }
            let b = nearest(blockers, d);
            if (1u64 << b) & self.opp & !captured != 0 && step::<V>(1u64 << b, d) & self.empty != 0
            {
                return true;
            }
        }
        false
    }
}

/// Runs the capture search for every piece of the side to move that can capture.
pub(crate) fn search_captures<V: Variant, S: CaptureSink<V>>(pos: &Position<V>, sink: &mut S) {
    search_captures_of(pos, capturing_men(pos), capturing_kings(pos), sink);
}

/// Runs the capture search for the men `men` (which must be able to capture) and the kings
/// `kings` of the side to move.
#[inline(always)]
fn search_captures_of<V: Variant, S: CaptureSink<V>>(
    pos: &Position<V>,
    men: u64,
    kings: u64,
    sink: &mut S,
) {
    if men | kings == 0 {
        return;
    }
    let us = pos.side();
    let mut cs = CaptureSearch::new(pos, sink);
    let mut m = men;
    while m != 0 {
        let b = m.trailing_zeros();
        m &= m - 1;
        cs.man_from(b, us);
    }
    let mut k = kings;
    while k != 0 {
        let b = k.trailing_zeros();
        k &= k - 1;
        cs.king_from(b);
    }
}

/// The opponent's pieces that a man of the side to move may take (not kings in italian).
#[inline(always)]
fn man_prey<V: Variant>(pos: &Position<V>) -> u64 {
    let them = pos.side().opponent();
    if V::MEN_CAPTURE_KINGS {
        pos.pieces(them).0
    } else {
        pos.men(them).0
    }
}

/// The men of the side to move that have a capture.
#[inline(always)]
fn capturing_men<V: Variant>(pos: &Position<V>) -> u64 {
    let us = pos.side();
    let men = pos.men(us).0;
    let opp = man_prey(pos);
    let empty = pos.empty().0;
    let mut can = 0;
    let dirs: &[usize] = if V::MEN_CAPTURE_BACKWARD {
        &[UP_LEFT, UP_RIGHT, DOWN_LEFT, DOWN_RIGHT]
    } else {
        match us {
            Color::White => &[UP_LEFT, UP_RIGHT],
            Color::Black => &[DOWN_LEFT, DOWN_RIGHT],
        }
    };
    for &d in dirs {
        let od = opposite(d);
        // men whose neighbour in d is an enemy and whose square beyond is empty
        let targets = step::<V>(step::<V>(empty, od) & opp, od);
        can |= targets & men;
    }
    can
}

/// The kings of the side to move to run the capture search for: all of them when one can
/// capture (a set-wise test), none otherwise, as the search tries kings one by one.
#[inline(always)]
fn capturing_kings<V: Variant>(pos: &Position<V>) -> u64 {
    let kings = pos.kings(pos.side()).0;
    if kings_can_capture(pos, kings) {
        kings
    } else {
        0
    }
}

/// Whether the side to move has a capture (and so must capture).
#[inline]
pub fn has_capture<V: Variant>(pos: &Position<V>) -> bool {
    if capturing_men(pos) != 0 {
        return true;
    }
    kings_can_capture(pos, pos.kings(pos.side()).0)
}

/// Whether one of `kings`, kings of the side to move, has a capture: an enemy piece at the
/// end of a king's slide with an empty square behind it.
#[inline(always)]
fn kings_can_capture<V: Variant>(pos: &Position<V>, kings: u64) -> bool {
    if kings == 0 {
        return false;
    }
    let opp = pos.pieces(pos.side().opponent()).0;
    let empty = pos.empty().0;
    (0..4).any(|d| {
        let f = if V::FLYING_KINGS {
            slide_fill::<V>(kings, empty, d)
        } else {
            kings
        };
        step::<V>(step::<V>(f, d) & opp, d) & empty != 0
    })
}

/// Whether the side not to move would have a capture if it were its turn (a threat).
#[inline]
pub fn opponent_has_capture<V: Variant>(pos: &Position<V>) -> bool {
    has_capture(&pos.with_side(pos.side().opponent()))
}

/// Whether the side to move has a non-capturing move (whether [`generate_quiet`] would add any):
/// a man with a free forward square or a king with a free neighbouring square.
#[inline]
pub fn has_quiet_move<V: Variant>(pos: &Position<V>) -> bool {
    let us = pos.side();
    let empty = pos.empty().0;
    let men = pos.men(us).0;
    let [d0, d1] = forward(us);
    if (step::<V>(men, d0) | step::<V>(men, d1)) & empty != 0 {
        return true;
    }
    let kings = pos.kings(us).0;
    kings != 0 && (0..4).any(|d| step::<V>(kings, d) & empty != 0)
}

/// Whether the side to move has a man that can step onto its promotion row.
#[inline]
pub fn has_promotion_move<V: Variant>(pos: &Position<V>) -> bool {
    let us = pos.side();
    let men = pos.men(us).0;
    let [d0, d1] = forward(us);
    (step::<V>(men, d0) | step::<V>(men, d1)) & pos.empty().0 & V::promotion_row(us).0 != 0
}

/// Appends the captures of the side to move (majority rule applied, equal moves merged).
pub fn generate_captures<V: Variant>(pos: &Position<V>, list: &mut MoveList<V>) {
    let mut sink = ListSink { list, best: 0 };
    search_captures(pos, &mut sink);
}

/// Appends the non-capturing moves of the side to move (legal only when it has no capture).
pub fn generate_quiet<V: Variant>(pos: &Position<V>, list: &mut MoveList<V>) {
    let us = pos.side();
    let empty = pos.empty().0;
    let occ = pos.occupied().0;
    let men = pos.men(us).0;
    let promo = V::promotion_row(us).0;
    for d in forward(us) {
        let mut t = step::<V>(men, d) & empty;
        let od = opposite(d);
        while t != 0 {
            let to = t.trailing_zeros();
            t &= t - 1;
            let from = step::<V>(1u64 << to, od).trailing_zeros();
            let flags = if promo >> to & 1 != 0 {
                MoveFlags::PROMOTION
            } else {
                MoveFlags::empty()
            };
            list.push(Move::new(from, to, Bitboard::EMPTY, flags));
        }
    }
    let mut k = pos.kings(us).0;
    while k != 0 {
        let from = k.trailing_zeros();
        k &= k - 1;
        for d in 0..4 {
            let mut t = king_reach::<V>(from, d, occ);
            while t != 0 {
                let to = t.trailing_zeros();
                t &= t - 1;
                list.push(Move::new(from, to, Bitboard::EMPTY, MoveFlags::KING));
            }
        }
    }
}

/// Fills `list` with every legal move of the side to move.
#[inline]
pub fn generate<V: Variant>(pos: &Position<V>, list: &mut MoveList<V>) {
    list.clear();
    generate_captures(pos, list);
    if list.is_empty() {
        generate_quiet(pos, list);
    }
}

/// Every legal move, in a new list.
pub fn legal_moves<V: Variant>(pos: &Position<V>) -> MoveList<V> {
    let mut l = MoveList::new();
    generate(pos, &mut l);
    l
}

/// The legal moves of `pos` in a canonical order that does not depend on the generator: by from
/// square, to square and captured set. Files that store a move as its index use this order.
pub fn canonical_moves<V: Variant>(pos: &Position<V>) -> MoveList<V> {
    let mut list = legal_moves(pos);
    list.as_mut_slice()
        .sort_unstable_by_key(|m| (m.from_bit(), m.to_bit(), m.captured().0));
    list
}

/// The number of legal moves, counted without building quiet moves.
#[inline]
pub fn count<V: Variant>(pos: &Position<V>) -> u64 {
    let us = pos.side();
    let (men_capturing, kings_capturing) = (capturing_men(pos), capturing_kings(pos));
    if men_capturing | kings_capturing != 0 {
        let mut list = MoveList::new();
        let mut sink = ListSink {
            list: &mut list,
            best: 0,
        };
        search_captures_of(pos, men_capturing, kings_capturing, &mut sink);
        if !list.is_empty() {
            return list.len() as u64;
        }
    }
    let empty = pos.empty().0;
    let men = pos.men(us).0;
    let [d0, d1] = forward(us);
    let n = (step::<V>(men, d0) & empty).count_ones() + (step::<V>(men, d1) & empty).count_ones();
    (n + king_quiet_count::<V>(pos.kings(us).0, empty)) as u64
}

/// The number of non-capturing moves of the kings `kings` over the `empty` squares. Rays of
/// different kings in one direction never overlap (a king blocks the one behind it), so the
/// set-wise fill counts every move once.
#[inline]
pub fn king_quiet_count<V: Variant>(kings: u64, empty: u64) -> u32 {
    if kings == 0 {
        return 0;
    }
    (0..4)
        .map(|d| {
            if V::FLYING_KINGS {
                (slide_fill::<V>(kings, empty, d) & empty).count_ones()
            } else {
                (step::<V>(kings, d) & empty).count_ones()
            }
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::variant::{International, Russian};

    #[test]
    fn opponent_capture_is_a_threat_of_the_side_not_to_move() {
        let parse = |f: &str| crate::core::fen::parse::<International>(f).unwrap();
        // White to move cannot take (19 blocks 28x19, 28 blocks 19x28); Black's 23 could.
        let p = parse("W:W19,28:B23");
        assert!(!has_capture(&p));
        assert!(opponent_has_capture(&p));
        assert!(!opponent_has_capture(&parse("W:W46:B5")));
    }

    #[test]
    fn a_king_slides_and_captures_along_the_whole_long_diagonal() {
        let parse = |f: &str| crate::core::fen::parse::<International>(f).unwrap();
        // the king on 46 reaches 5, nine squares away: the fill needs all four doubling steps
        let p = parse("W:WK46:B3");
        assert_eq!(count(&p), 9);
        assert_eq!(legal_moves(&p).len(), 9);
        // it takes 10 from 46 across seven empty squares; a man on 5 leaves no landing square
        assert!(has_capture(&parse("W:WK46:B10")));
        assert!(!has_capture(&parse("W:WK46:B5")));
        assert!(!has_capture(&parse("W:WK46:B10,5")));
        // on 8x8 the fill's three steps take a1 past six empty squares to take g7
        let r = |f: &str| crate::core::fen::parse::<Russian>(f).unwrap();
        assert!(has_capture(&r("W:WKa1:Bg7")));
        assert_eq!(count(&r("W:WKa1:Bb4")), 7);
    }

    #[test]
    fn start_position_has_nine_moves() {
        let p = Position::<International>::start();
        assert_eq!(legal_moves(&p).len(), 9);
        assert_eq!(count(&p), 9);
        let r = Position::<Russian>::start();
        assert_eq!(count(&r), 7);
    }
}
