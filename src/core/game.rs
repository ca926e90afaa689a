//! A game record: a start position and the moves played, with the result the rules give it
//! (no piece or no move loses; threefold repetition and the variant's draw rules).

use crate::core::fen::{self, FenError};
use crate::core::movegen;
use crate::core::moves::Move;
use crate::core::notation::{self, MoveError};
use crate::core::position::Position;
use crate::core::variant::{Color, DrawRules, Variant};

/// Why a game is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DrawReason {
    /// The same position with the same side to move occurred three times.
    Repetition,
    /// The same position with the same side to move occurred four times (italian).
    FourfoldRepetition,
    /// FMJD 25-move rule: 25 moves each of kings only, no capture, no man move.
    TwentyFiveMoves,
    /// FMJD 16-move rule: a lone king against three pieces with at least one king.
    SixteenMoves,
    /// FMJD 5-move rule: a lone king against at most two pieces with at least one king.
    FiveMoves,
    /// FMJD-64 7.2.5: 15 moves each of kings only, no capture, no man move.
    FifteenKingMoves,
    /// FMJD-64 7.2.4: three or more kings against a lone king for 15 moves.
    ThreeKingsAgainstOne,
    /// FMJD-64 7.2.6: kings on both sides and unchanged material for 30 or 60 moves.
    UnchangedMaterial,
    /// 40 moves each without a capture or a man move (english, italian and the other 8x8 games).
    FortyMoves,
    /// English: 400 moves in all.
    MoveLimit,
    /// Platform dama's local move limit, set to other than the default 25 moves: that many
    /// moves each of kings only, no capture, no man move.
    KingMoveLimit,
}

impl DrawReason {
    /// A short description for PDN comments and logs.
    pub fn describe(self) -> &'static str {
        match self {
            DrawReason::Repetition => "threefold repetition",
            DrawReason::FourfoldRepetition => "fourfold repetition",
            DrawReason::TwentyFiveMoves => "25-move rule",
            DrawReason::SixteenMoves => "16-move rule",
            DrawReason::FiveMoves => "5-move rule",
            DrawReason::FifteenKingMoves => "15 king moves rule",
            DrawReason::ThreeKingsAgainstOne => "three kings against one",
            DrawReason::UnchangedMaterial => "unchanged material rule",
            DrawReason::FortyMoves => "40-move rule",
            DrawReason::MoveLimit => "400-move limit",
            DrawReason::KingMoveLimit => "move-limit rule",
        }
    }
}

/// The state of a game by the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// The game goes on.
    Ongoing,
    /// The side to move has no piece or no legal move: the other side wins.
    Win(Color),
    /// Drawn by a rule.
    Draw(DrawReason),
}

/// The draw-rule counters of one position, in plies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DrawClocks {
    /// Plies in a row of non-capturing king moves.
    pub reversible: u32,
    /// Plies left on the 16-move clock (FMJD) or the three-kings clock (FMJD-64), if running.
    pub long_endgame: Option<u32>,
    /// Plies left on the 5-move clock, if running.
    pub short_endgame: Option<u32>,
    /// Plies with kings on both sides and unchanged material (FMJD-64 7.2.6).
    pub unchanged_material: u32,
    /// Platform dama's move limit in moves each, when set to other than its default (25);
    /// the other variants' rules are fixed and ignore it.
    pub move_limit: Option<MoveLimit>,
}

/// The length of a settable king-move draw rule, in moves of each side (1 to 1000).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MoveLimit(u16);

impl MoveLimit {
    /// Platform dama's limit when none is set: the FMJD 25-move rule.
    pub const DEFAULT_MOVES: u32 = 25;

    /// The limit of `moves` moves each, if within 1 to 1000.
    pub fn new(moves: u32) -> Option<MoveLimit> {
        (1..=1000)
            .contains(&moves)
            .then_some(MoveLimit(moves as u16))
    }

    /// The limit in moves of each side.
    pub fn moves(self) -> u32 {
        self.0 as u32
    }

    /// Whether this is the default length, which plays as no setting at all.
    pub fn is_default(self) -> bool {
        self.moves() == Self::DEFAULT_MOVES
    }
}

/// Which lone-king ending a position is, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ending {
    None,
    Short,
    Long,
}

fn ending<V: Variant>(pos: &Position<V>) -> Ending {
    for lone in [Color::White, Color::Black] {
        let strong = lone.opponent();
        let lone_pieces = pos.pieces(lone);
        if lone_pieces.count() != 1 || pos.kings(lone).count() != 1 {
            continue;
        }
        let n = pos.pieces(strong).count();
        let k = pos.kings(strong).count();
        if k == 0 {
            continue;
        }
        return match V::DRAW_RULES {
            DrawRules::Fmjd100 => match n {
                1 | 2 => Ending::Short,
                3 => Ending::Long,
                _ => Ending::None,
            },
            DrawRules::Fmjd64 => {
                if n <= 2 || (n == 3 && on_long_diagonal::<V>(pos, lone)) {
                    Ending::Short
                } else if n == k && k >= 3 {
                    Ending::Long
                } else {
                    Ending::None
                }
            }
            DrawRules::English | DrawRules::Italian | DrawRules::Plain | DrawRules::Platform => {
                Ending::None
            }
        };
    }
    Ending::None
}

/// Whether the lone king of `color` stands on the long diagonal (a1-h8) of an 8x8 board.
fn on_long_diagonal<V: Variant>(pos: &Position<V>, color: Color) -> bool {
    let b = pos.kings(color).lowest();
    let (row, col) = crate::core::variant::geometry::row_col(V::HALF, V::square(b).index() as u32);
    row + col == (V::ROWS - 1) as i32
}

impl DrawClocks {
    /// The clocks of a position reached from nowhere (a set-up position).
    pub fn initial<V: Variant>(pos: &Position<V>) -> DrawClocks {
        let (long, short) = Self::limits::<V>();
        let e = ending(pos);
        DrawClocks {
            reversible: 0,
            long_endgame: (e == Ending::Long).then_some(long),
            short_endgame: (e == Ending::Short).then_some(short),
            unchanged_material: 0,
            move_limit: None,
        }
    }

    fn limits<V: Variant>() -> (u32, u32) {
        match V::DRAW_RULES {
            DrawRules::Fmjd100 => (32, 10),
            DrawRules::Fmjd64 => (30, 10),
            DrawRules::English | DrawRules::Italian | DrawRules::Plain | DrawRules::Platform => {
                (0, 0)
            }
        }
    }

    /// The clocks after `m` was played, reaching `after`.
    pub fn after<V: Variant>(&self, m: &Move<V>, after: &Position<V>) -> DrawClocks {
        let (long, short) = Self::limits::<V>();
        let e = ending(after);
        let tick = |c: Option<u32>, mine: Ending| -> Option<u32> {
            match c {
                Some(n) if e != Ending::None => Some(n.saturating_sub(1)),
                Some(_) => None,
                None if e == mine => Some(if mine == Ending::Long { long } else { short }),
                None => None,
            }
        };
        let both_kings = after.kings(Color::White).any() && after.kings(Color::Black).any();
        DrawClocks {
            reversible: if m.is_king_move() && !m.is_capture() {
                self.reversible + 1
            } else {
                0
            },
            long_endgame: tick(self.long_endgame, Ending::Long),
            short_endgame: tick(self.short_endgame, Ending::Short),
            unchanged_material: if both_kings && !m.is_capture() && !m.is_promotion() {
                self.unchanged_material + 1
            } else {
                0
            },
            move_limit: self.move_limit,
        }
    }

    /// The rule counting non-capturing king moves, and the plies it allows.
    fn king_move_rule<V: Variant>(&self) -> (DrawReason, u32) {
        match V::DRAW_RULES {
            DrawRules::Platform => match self.move_limit {
                Some(l) if !l.is_default() => (DrawReason::KingMoveLimit, 2 * l.moves()),
                _ => (DrawReason::TwentyFiveMoves, 50),
            },
            DrawRules::Fmjd100 => (DrawReason::TwentyFiveMoves, 50),
            DrawRules::Fmjd64 => (DrawReason::FifteenKingMoves, 30),
            DrawRules::English | DrawRules::Italian | DrawRules::Plain => {
                (DrawReason::FortyMoves, 80)
            }
        }
    }

    /// FMJD-64 7.2.6: the plies of unchanged material allowed with `pieces` on the board, if
    /// the rule applies to that many.
    fn material_limit(pieces: u32) -> Option<u32> {
        match pieces {
            4 | 5 => Some(60),
            6 | 7 => Some(120),
            _ => None,
        }
    }

    /// The draw these clocks give in `pos`, if any.
    pub fn draw<V: Variant>(&self, pos: &Position<V>) -> Option<DrawReason> {
        let (king_rule, king_limit) = self.king_move_rule::<V>();
        let king_moves = (self.reversible >= king_limit).then_some(king_rule);
        match V::DRAW_RULES {
            DrawRules::Fmjd100 => {
                if self.short_endgame == Some(0) {
                    Some(DrawReason::FiveMoves)
                } else if self.long_endgame == Some(0) {
                    Some(DrawReason::SixteenMoves)
                } else {
                    king_moves
                }
            }
            DrawRules::Fmjd64 => {
                if self.short_endgame == Some(0) {
                    Some(DrawReason::FiveMoves)
                } else if self.long_endgame == Some(0) {
                    Some(DrawReason::ThreeKingsAgainstOne)
                } else if king_moves.is_some() {
                    king_moves
                } else {
                    Self::material_limit(pos.occupied().count())
                        .filter(|&l| self.unchanged_material >= l)
                        .map(|_| DrawReason::UnchangedMaterial)
                }
            }
            DrawRules::English | DrawRules::Italian | DrawRules::Plain | DrawRules::Platform => {
                king_moves
            }
        }
    }
}

impl DrawClocks {
    /// The plies that can surely still be played from `pos` before a rule that counts moves
    /// draws the game, if no capture or promotion comes first: the least over the rules that
    /// run or could start with this material (the king-move count as if only kings moved).
    /// An endgame database's win whose distance to conversion fits in it is a win under these
    /// rules too.
    pub fn plies_left<V: Variant>(&self, pos: &Position<V>) -> u32 {
        let (_, king_limit) = self.king_move_rule::<V>();
        let mut left = king_limit.saturating_sub(self.reversible);
        for clock in [self.short_endgame, self.long_endgame]
            .into_iter()
            .flatten()
        {
            left = left.min(clock);
        }
        if V::DRAW_RULES == DrawRules::Fmjd64 {
            let (_, short) = Self::limits::<V>();
            // three against a lone king: the 5-move clock starts when the lone king steps onto
            // the long diagonal, with no change of material
            let lone_against_three = [Color::White, Color::Black].into_iter().any(|c| {
                pos.pieces(c).count() == 1
                    && pos.kings(c).count() == 1
                    && pos.pieces(c.opponent()).count() == 3
                    && pos.kings(c.opponent()).any()
            });
            if lone_against_three && self.short_endgame.is_none() {
                left = left.min(short);
            }
            let both_kings = pos.kings(Color::White).any() && pos.kings(Color::Black).any();
            if let Some(l) = Self::material_limit(pos.occupied().count()).filter(|_| both_kings) {
                left = left.min(l.saturating_sub(self.unchanged_material));
            }
        }
        left
    }

    /// The draw rule whose count is running in `pos`, with the plies left before it draws the
    /// game (a rule that could draw: the lone-king clocks once started, the king-move and
    /// unchanged-material counts once at least one ply has been counted).
    pub fn running<V: Variant>(&self, pos: &Position<V>) -> Option<(DrawReason, u32)> {
        let (king_rule, king_limit) = self.king_move_rule::<V>();
        let king_moves =
            (self.reversible > 0).then(|| (king_rule, king_limit.saturating_sub(self.reversible)));
        match V::DRAW_RULES {
            DrawRules::Fmjd100 => {
                if let Some(n) = self.short_endgame {
                    Some((DrawReason::FiveMoves, n))
                } else if let Some(n) = self.long_endgame {
                    Some((DrawReason::SixteenMoves, n))
                } else {
                    king_moves
                }
            }
            DrawRules::Fmjd64 => {
                if let Some(n) = self.short_endgame {
                    Some((DrawReason::FiveMoves, n))
                } else if let Some(n) = self.long_endgame {
                    Some((DrawReason::ThreeKingsAgainstOne, n))
                } else if king_moves.is_some() {
                    king_moves
                } else {
                    Self::material_limit(pos.occupied().count())
                        .filter(|_| self.unchanged_material > 0)
                        .map(|l| {
                            let left = l.saturating_sub(self.unchanged_material);
                            (DrawReason::UnchangedMaterial, left)
                        })
                }
            }
            DrawRules::English | DrawRules::Italian | DrawRules::Plain | DrawRules::Platform => {
                king_moves
            }
        }
    }
}

/// A game: a start position, the moves played from it, and every position and draw clock on the
/// way, so that repetitions and draw rules are known at every point.
#[derive(Clone, Debug)]
pub struct Game<V: Variant> {
    moves: Vec<Move<V>>,
    positions: Vec<Position<V>>,
    clocks: Vec<DrawClocks>,
    /// Index in `positions` of the first position after the last irreversible move.
    reversible_from: Vec<usize>,
}

impl<V: Variant> Default for Game<V> {
    fn default() -> Self {
        Self::new(Position::start())
    }
}

impl<V: Variant> Game<V> {
    /// A game starting from `start`.
    pub fn new(start: Position<V>) -> Self {
        Game {
            moves: Vec::new(),
            positions: vec![start],
            clocks: vec![DrawClocks::initial(&start)],
            reversible_from: vec![0],
        }
    }

    /// A game starting from a FEN.
    pub fn from_fen(text: &str) -> Result<Self, FenError> {
        Ok(Self::new(fen::parse(text)?))
    }

    /// The start position.
    pub fn start(&self) -> &Position<V> {
        &self.positions[0]
    }

    /// The current position.
    pub fn position(&self) -> &Position<V> {
        self.positions.last().expect("a game always has a position")
    }

    /// The moves played.
    pub fn moves(&self) -> &[Move<V>] {
        &self.moves
    }

    /// Every position from the start to the current one.
    pub fn positions(&self) -> &[Position<V>] {
        &self.positions
    }

    /// The draw clocks of the current position.
    pub fn clocks(&self) -> DrawClocks {
        *self.clocks.last().expect("a game always has clocks")
    }

    /// Sets platform dama's move limit for the whole game (`None`: the default 25 moves); the
    /// other variants' draw rules are fixed, and the setting does not change them.
    pub fn set_move_limit(&mut self, limit: Option<MoveLimit>) {
        for c in &mut self.clocks {
            c.move_limit = limit;
        }
    }

    /// Hashes of the positions since the last irreversible move, oldest first, the current one
    /// last (what a search needs to see repetitions).
    pub fn reversible_hashes(&self) -> Vec<u64> {
        let from = *self.reversible_from.last().expect("non-empty");
        self.positions[from..].iter().map(|p| p.hash()).collect()
    }

    /// Plays a move, which must be legal in the current position.
    pub fn play(&mut self, m: Move<V>) -> Result<(), MoveError> {
        let pos = *self.position();
        let legal = movegen::legal_moves(&pos);
        if !legal
            .iter()
            .any(|l| l.from == m.from && l.to == m.to && l.captured == m.captured)
        {
            return Err(MoveError::Illegal(notation::hub(&m)));
        }
        self.push_unchecked(m);
        Ok(())
    }

    fn push_unchecked(&mut self, m: Move<V>) {
        let pos = *self.position();
        let next = pos.make(&m);
        let clocks = self.clocks().after(&m, &next);
        let n = self.positions.len();
        let rev = if m.is_irreversible() {
            n
        } else {
            *self.reversible_from.last().expect("non-empty")
        };
        self.moves.push(m);
        self.positions.push(next);
        self.clocks.push(clocks);
        self.reversible_from.push(rev);
    }

    /// Reads a move in any notation and plays it.
    pub fn play_text(&mut self, text: &str) -> Result<Move<V>, MoveError> {
        let m = notation::parse(self.position(), text)?;
        self.push_unchecked(m);
        Ok(m)
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Option<Move<V>> {
        let m = self.moves.pop()?;
        self.positions.pop();
        self.clocks.pop();
        self.reversible_from.pop();
        Some(m)
    }

    /// How many times the current position has occurred (same side to move), itself included.
    pub fn repetitions(&self) -> usize {
        let from = *self.reversible_from.last().expect("non-empty");
        let h = self.position().hash();
        self.positions[from..]
            .iter()
            .filter(|p| p.hash() == h)
            .count()
    }

    /// Why the rules ended the game, in words (`white has no legal move`, `draw: 25-move
    /// rule`), or `None` while it goes on.
    pub fn result_reason(&self) -> Option<String> {
        match self.result() {
            GameResult::Ongoing => None,
            GameResult::Draw(d) => Some(format!("draw: {}", d.describe())),
            GameResult::Win(w) => Some(self.loss_reason(w.opponent())),
        }
    }

    /// Why `loser` lost by the rules in the current position: `white has no pieces left` or
    /// `white has no legal move`.
    pub fn loss_reason(&self, loser: Color) -> String {
        if self.position().pieces(loser).is_empty() {
            format!("{} has no pieces left", loser.name())
        } else {
            format!("{} has no legal move", loser.name())
        }
    }

    /// The result by the rules in the current position.
    pub fn result(&self) -> GameResult {
        let pos = self.position();
        if pos.pieces(pos.side().opponent()).is_empty() {
            return GameResult::Win(pos.side());
        }
        if movegen::count(pos) == 0 {
            return GameResult::Win(pos.side().opponent());
        }
        if self.repetitions() >= V::REPETITIONS {
            return GameResult::Draw(if V::REPETITIONS == 4 {
                DrawReason::FourfoldRepetition
            } else {
                DrawReason::Repetition
            });
        }
        if V::DRAW_RULES == DrawRules::English && self.moves.len() >= 400 {
            return GameResult::Draw(DrawReason::MoveLimit);
        }
        match self.clocks().draw(pos) {
            Some(r) => GameResult::Draw(r),
            None => GameResult::Ongoing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::variant::International;

    /// Plays `plies` quiet king moves, each reaching a position not seen before and leaving
    /// no capture, and returns the results after each ply.
    fn king_walk<V: Variant>(g: &mut Game<V>, plies: usize) -> Vec<GameResult> {
        let mut seen = std::collections::HashSet::new();
        seen.insert(g.position().hash());
        let mut results = Vec::new();
        for _ in 0..plies {
            let m = *movegen::legal_moves(g.position())
                .iter()
                .find(|m| {
                    let next = g.position().make(m);
                    m.is_king_move()
                        && !m.is_capture()
                        && !movegen::has_capture(&next)
                        && !seen.contains(&next.hash())
                })
                .expect("a fresh quiet king move");
            g.play(m).unwrap();
            seen.insert(g.position().hash());
            results.push(g.result());
        }
        results
    }

    #[test]
    fn platform_move_limit_is_a_setting() {
        use crate::core::variant::Platform;
        let fen = "B:WK46,K36:BK5,K15";
        // the default: 25 moves each
        let mut g: Game<Platform> = Game::from_fen(fen).unwrap();
        let r = king_walk(&mut g, 50);
        assert!(r[..49].iter().all(|r| *r == GameResult::Ongoing));
        assert_eq!(r[49], GameResult::Draw(DrawReason::TwentyFiveMoves));
        // three moves each
        let mut g: Game<Platform> = Game::from_fen(fen).unwrap();
        g.set_move_limit(MoveLimit::new(3));
        let r = king_walk(&mut g, 6);
        assert!(r[..5].iter().all(|r| *r == GameResult::Ongoing));
        assert_eq!(r[5], GameResult::Draw(DrawReason::KingMoveLimit));
        assert_eq!(
            g.clocks().running(g.position()),
            Some((DrawReason::KingMoveLimit, 0))
        );
        // set after the moves were played, and taken back to the default
        g.set_move_limit(None);
        assert_eq!(g.result(), GameResult::Ongoing);
        g.set_move_limit(MoveLimit::new(25));
        assert_eq!(g.result(), GameResult::Ongoing);
        // the fixed FMJD rule ignores it
        let mut g: Game<International> = Game::from_fen("W:WK46,K36:BK5,K15").unwrap();
        g.set_move_limit(MoveLimit::new(3));
        assert!(king_walk(&mut g, 6)
            .iter()
            .all(|r| *r == GameResult::Ongoing));
        assert_eq!(MoveLimit::new(0), None);
        assert_eq!(MoveLimit::new(1001), None);
        assert_eq!(MoveLimit::new(40).map(MoveLimit::moves), Some(40));
    }

    #[test]
    fn no_piece_or_no_move_loses() {
        let g: Game<International> = Game::from_fen("B:W31:B").unwrap();
        assert_eq!(g.result(), GameResult::Win(Color::White));
        let g: Game<International> = Game::from_fen("W:W31:B").unwrap();
        assert_eq!(g.result(), GameResult::Win(Color::White));
        // a white man blocked by two black men has no move
        let g: Game<International> = Game::from_fen("W:W46:B41,37").unwrap();
        assert_eq!(g.result(), GameResult::Win(Color::Black));
        let g: Game<International> = Game::default();
        assert_eq!(g.result(), GameResult::Ongoing);
    }

    #[test]
    fn english_draws_after_forty_king_moves_each() {
        use crate::core::variant::English;
        // two short kings walking back and forth: 80 plies without a capture or a man move
        let mut g: Game<English> = Game::from_fen("W:WK29:BK4").unwrap();
        let cycle = ["29-25", "4-8", "25-29", "8-4"];
        // the positions repeat too: only the clock is looked at here
        for ply in 0..80 {
            assert_eq!(g.clocks().draw(g.position()), None, "ply {ply}");
            g.play_text(cycle[ply % 4]).unwrap();
        }
        assert_eq!(g.clocks().reversible, 80);
        assert_eq!(g.clocks().draw(g.position()), Some(DrawReason::FortyMoves));
    }

    #[test]
    fn italian_needs_a_fourth_occurrence_to_draw() {
        use crate::core::variant::{Italian, Russian};
        let cycle = ["29-25", "4-8", "25-29", "8-4"];
        let mut g: Game<Italian> = Game::from_fen("W:WK29:BK4").unwrap();
        for m in cycle.iter().chain(&cycle) {
            g.play_text(m).unwrap();
        }
        assert_eq!(g.repetitions(), 3);
        assert_eq!(g.result(), GameResult::Ongoing);
        for m in cycle {
            g.play_text(m).unwrap();
        }
        assert_eq!(g.result(), GameResult::Draw(DrawReason::FourfoldRepetition));
        assert_eq!(
            DrawReason::FourfoldRepetition.describe(),
            "fourfold repetition"
        );
        // three occurrences suffice elsewhere
        let mut r: Game<Russian> = Game::from_fen("W:WK29:BK1").unwrap();
        for m in ["29-25", "1-5", "25-29", "5-1"].iter().cycle().take(8) {
            r.play_text(m).unwrap();
        }
        assert_eq!(r.result(), GameResult::Draw(DrawReason::Repetition));
    }

    #[test]
    fn plies_left_is_the_nearest_rule_that_could_draw() {
        use crate::core::variant::{English, Russian};
        // nothing counted yet: the 25-move rule's 50 plies
        let mut g: Game<International> = Game::from_fen("W:WK46,K47,20:BK5,15").unwrap();
        assert_eq!(g.clocks().plies_left(g.position()), 50);
        g.play_text("46-41").unwrap();
        assert_eq!(g.clocks().plies_left(g.position()), 49);
        // three against a lone king: the 16-move clock (32 plies), then counting down
        let mut g: Game<International> = Game::from_fen("W:WK46,K47,K48:BK5").unwrap();
        assert_eq!(g.clocks().plies_left(g.position()), 32);
        g.play_text("46-41").unwrap();
        assert_eq!(g.clocks().plies_left(g.position()), 31);
        // two against a lone king: the 5-move clock
        let g: Game<International> = Game::from_fen("W:WK46,40:BK5").unwrap();
        assert_eq!(g.clocks().plies_left(g.position()), 10);
        // english: 40 moves each without a capture or a man move
        let g: Game<English> = Game::from_fen("W:WK1,K2:BK32").unwrap();
        assert_eq!(g.clocks().plies_left(g.position()), 80);
        // russian three kings against one off the long diagonal: the 15-move clock runs, and
        // the 5-move one could start as soon as the lone king steps onto the diagonal
        let g: Game<Russian> = Game::from_fen("W:WK1,K2,K3:BK12").unwrap();
        assert_eq!(g.clocks().plies_left(g.position()), 10);
    }

    #[test]
    fn running_draw_rules_count_down() {
        use crate::core::variant::English;
        let mut g: Game<International> = Game::from_fen("W:WK46,K47:BK5,K4").unwrap();
        assert_eq!(g.clocks().running(g.position()), None);
        g.play_text("46-41").unwrap();
        assert_eq!(
            g.clocks().running(g.position()),
            Some((DrawReason::TwentyFiveMoves, 49))
        );
        // a lone king against a king and a man: the 5-move clock, 10 plies
        let g: Game<International> = Game::from_fen("W:WK46,40:BK5").unwrap();
        assert_eq!(
            g.clocks().running(g.position()),
            Some((DrawReason::FiveMoves, 10))
        );
        let mut e: Game<English> = Game::from_fen("W:WK29:BK4").unwrap();
        e.play_text("29-25").unwrap();
        assert_eq!(
            e.clocks().running(e.position()),
            Some((DrawReason::FortyMoves, 79))
        );
        assert_eq!(Game::<International>::default().result_reason(), None);
        let lost: Game<International> = Game::from_fen("W:W46:B41,37").unwrap();
        assert_eq!(lost.result_reason().unwrap(), "white has no legal move");
    }

    #[test]
    fn undo_restores_the_previous_state() {
        let mut g: Game<International> = Game::default();
        let before = *g.position();
        g.play_text("32-28").unwrap();
        assert_ne!(*g.position(), before);
        assert_eq!(crate::core::notation::hub(&g.undo().unwrap()), "32-28");
        assert_eq!(*g.position(), before);
        assert!(g.undo().is_none());
    }
}
