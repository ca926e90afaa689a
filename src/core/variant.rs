//! Variants as compile-time rule switches.
//!
//! A [`Variant`] is a zero-sized type whose associated constants describe the board geometry and the
//! rules of one game. Move generation is generic over it, so every rule switch is resolved when the
//! generator is monomorphised and the inner loops carry no runtime rule checks.

use std::fmt;
use std::hash::Hash;
use std::str::FromStr;

use crate::core::bitboard::Bitboard;
use crate::core::square::Square;

/// One of the two players.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// The side that starts on the high-numbered squares (31-50 in international draughts).
    White = 0,
    /// The side that starts on the low-numbered squares (1-20 in international draughts).
    Black = 1,
}

impl Color {
    /// The other player.
    #[inline]
    pub const fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// 0 for white, 1 for black, for indexing tables.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `white` or `black`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }

    /// `W` or `B`.
    pub const fn letter(self) -> char {
        match self {
            Color::White => 'W',
            Color::Black => 'B',
        }
    }
}

/// How a player must choose among the available captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaptureRule {
    /// Any complete capture sequence may be played (russian).
    Free,
    /// A sequence taking the most pieces must be played; men and kings count the same.
    Majority,
    /// The most pieces, and among those the most kings (spanish).
    MajorityThenKings,
    /// A king must capture when one can; otherwise (and among king captures) free (czech).
    KingFirst,
    /// The Italian priorities in order: the most pieces; with a king; the most kings; the king
    /// met earliest.
    Italian,
}

/// Which family of draw rules applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawRules {
    /// FMJD 10x10: threefold repetition, 25-move, 16-move and 5-move rules.
    Fmjd100,
    /// FMJD-64 (russian, brazilian): threefold repetition, 15 king moves, 3 kings against 1, 5-move rule.
    Fmjd64,
    /// English checkers: threefold repetition, 40 moves each without a capture or a man move, 400
    /// moves in all.
    English,
    /// Italian: fourfold repetition, 40 moves each without a capture or a man move.
    Italian,
    /// Threefold repetition and 40 moves each without a capture or a man move (the 8x8 games
    /// whose rule texts give no other limit: pool, spanish, czech).
    Plain,
    /// Platform dama: repetition and a move limit, by default the FMJD 25-move rule (its
    /// source names a limit of moves without capture but not its length; see
    /// [`Game::set_move_limit`](crate::core::game::Game::set_move_limit)).
    Platform,
}

/// The variants the engine plays, as a runtime value (for command lines and protocols).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VariantKind {
    /// International draughts, 10x10 (FMJD).
    International,
    /// Brazilian draughts: international rules on 8x8.
    Brazilian,
    /// Russian draughts (shashki): free capture, promotion mid-capture.
    Russian,
    /// English draughts / American checkers: black first, short kings, free capture.
    English,
    /// Italian draughts: a1 light, men never take kings, the Italian capture priorities.
    Italian,
    /// Spanish draughts: a1 light, flying kings, men capture forward, most pieces then most kings.
    Spanish,
    /// American pool checkers: black first, flying kings, men capture backward, free capture.
    Pool,
    /// Czech draughts: flying kings, men capture forward, a king must capture when one can.
    Czech,
    /// Platform dama: international rules but black first, most pieces then most kings, and
    /// captured pieces removed at once.
    Platform,
    /// Filipino dama: as brazilian (the one published engine rule set), under its own name.
    Filipino,
    /// Thai draughts (mak-hot): 8 men each, black first, a capturing king lands right behind
    /// the piece it takes, captured pieces removed at once.
    Thai,
}

impl VariantKind {
    /// Every supported variant.
    pub const ALL: [VariantKind; 11] = [
        VariantKind::International,
        VariantKind::Brazilian,
        VariantKind::Russian,
        VariantKind::English,
        VariantKind::Italian,
        VariantKind::Spanish,
        VariantKind::Pool,
        VariantKind::Czech,
        VariantKind::Platform,
        VariantKind::Filipino,
        VariantKind::Thai,
    ];

    /// The canonical lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            VariantKind::International => "international",
            VariantKind::Brazilian => "brazilian",
            VariantKind::Russian => "russian",
            VariantKind::English => "english",
            VariantKind::Italian => "italian",
            VariantKind::Spanish => "spanish",
            VariantKind::Pool => "pool",
            VariantKind::Czech => "czech",
            VariantKind::Platform => "platform",
            VariantKind::Filipino => "filipino",
            VariantKind::Thai => "thai",
        }
    }

    /// Every name accepted for the variant, the canonical one first (case does not matter).
    pub const fn names(self) -> &'static [&'static str] {
        match self {
            VariantKind::International => &["international", "normal", "standard", "intl", "fmjd"],
            VariantKind::Brazilian => &["brazilian", "brazil"],
            VariantKind::Russian => &["russian", "shashki"],
            VariantKind::English => &["english", "american", "checkers"],
            VariantKind::Italian => &["italian"],
            VariantKind::Spanish => &["spanish"],
            VariantKind::Pool => &["pool", "american-pool", "americanpool"],
            VariantKind::Czech => &["czech"],
            VariantKind::Platform => &["platform", "platform-dama"],
            VariantKind::Filipino => &["filipino", "dama-filipino"],
            VariantKind::Thai => &["thai", "mak-hot", "makhot"],
        }
    }

    /// The value of the Hub `variant` parameter: `normal` for international draughts (what Hub
    /// clients send), the canonical name otherwise.
    pub const fn hub_name(self) -> &'static str {
        match self {
            VariantKind::International => "normal",
            other => other.name(),
        }
    }

    /// Every variant with its other names, for help texts and error messages:
    /// `international (normal, standard, ...), brazilian (brazil), ...`.
    pub fn names_text() -> String {
        let parts: Vec<String> = VariantKind::ALL
            .iter()
            .map(|k| match k.names() {
                [name] => name.to_string(),
                [name, others @ ..] => format!("{name} ({})", others.join(", ")),
                [] => String::new(),
            })
            .collect();
        parts.join(", ")
    }

    /// The PDN GameType number.
    pub const fn game_type(self) -> u32 {
        match self {
            VariantKind::International => 20,
            VariantKind::English => 21,
            VariantKind::Italian => 22,
            VariantKind::Pool => 23,
            VariantKind::Spanish => 24,
            VariantKind::Russian => 25,
            VariantKind::Brazilian => 26,
            VariantKind::Czech => 29,
            // no number is assigned to it: one outside the PDN standard's list
            VariantKind::Platform => 50,
            VariantKind::Filipino => 51,
            VariantKind::Thai => 52,
        }
    }
}

impl VariantKind {
    /// The variant of a PDN GameType number (`20` international, `21` english, ...).
    pub fn from_game_type(number: u32) -> Option<VariantKind> {
        VariantKind::ALL
            .into_iter()
            .find(|k| k.game_type() == number)
    }
}

impl fmt::Display for VariantKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A variant name that is not known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant '{0}' (expected one of: {names})", names = VariantKind::names_text())]
pub struct UnknownVariant(pub String);

impl FromStr for VariantKind {
    type Err = UnknownVariant;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        VariantKind::ALL
            .into_iter()
            .find(|k| k.names().iter().any(|n| n.eq_ignore_ascii_case(s)))
            .ok_or_else(|| UnknownVariant(s.to_string()))
    }
}

/// Calls a generic function with the variant type that matches a runtime [`VariantKind`].
///
/// `with_variant!(kind, V => expr)` evaluates `expr` with `V` bound to the variant's type.
#[macro_export]
macro_rules! with_variant {
    ($kind:expr, $v:ident => $body:expr) => {
        match $kind {
            $crate::core::variant::VariantKind::International => {
                type $v = $crate::core::variant::International;
                $body
            }
            $crate::core::variant::VariantKind::Brazilian => {
                type $v = $crate::core::variant::Brazilian;
                $body
            }
            $crate::core::variant::VariantKind::Russian => {
                type $v = $crate::core::variant::Russian;
                $body
            }
            $crate::core::variant::VariantKind::English => {
                type $v = $crate::core::variant::English;
                $body
            }
            $crate::core::variant::VariantKind::Italian => {
                type $v = $crate::core::variant::Italian;
                $body
            }
            $crate::core::variant::VariantKind::Spanish => {
                type $v = $crate::core::variant::Spanish;
                $body
            }
            $crate::core::variant::VariantKind::Pool => {
                type $v = $crate::core::variant::Pool;
                $body
            }
            $crate::core::variant::VariantKind::Czech => {
                type $v = $crate::core::variant::Czech;
                $body
            }
            $crate::core::variant::VariantKind::Platform => {
                type $v = $crate::core::variant::Platform;
                $body
            }
            $crate::core::variant::VariantKind::Filipino => {
                type $v = $crate::core::variant::Filipino;
                $body
            }
            $crate::core::variant::VariantKind::Thai => {
                type $v = $crate::core::variant::Thai;
                $body
            }
        }
    };
}

/// The rule switches and geometry of one game.
///
/// The board is stored in a padded ("ghost square") layout: every pair of rows takes `2*HALF+1` bits,
/// the last of which is a ghost. A diagonal step is then a shift by `HALF` or `HALF+1` bits and never
/// wraps round an edge.
pub trait Variant:
    Copy + Clone + Default + PartialEq + Eq + Hash + fmt::Debug + Send + Sync + 'static
{
    /// The runtime tag of this variant.
    const KIND: VariantKind;
    /// Playable squares per row (5 on 10x10, 4 on 8x8).
    const HALF: u32;
    /// Rows of the board (10 or 8).
    const ROWS: u32;
    /// Rows of men each side starts with.
    const START_ROWS: u32;
    /// Whether men capture backward.
    const MEN_CAPTURE_BACKWARD: bool;
    /// Whether kings move and capture at a distance.
    const FLYING_KINGS: bool;
    /// How the player chooses among captures.
    const CAPTURE_RULE: CaptureRule;
    /// Whether a man reaching the far row in the middle of a capture is crowned at once and goes on
    /// capturing as a king (russian); otherwise it stays a man until its move ends there.
    const PROMOTE_MID_CAPTURE: bool;
    /// The side that moves first.
    const FIRST: Color;
    /// PDN GameType number.
    const GAME_TYPE: u32 = Self::KIND.game_type();
    /// The draw rules.
    const DRAW_RULES: DrawRules;
    /// Whether squares may also be written algebraically (a1..h8) in FEN and moves.
    const ALGEBRAIC: bool;
    /// Whether men may capture kings (not in italian).
    const MEN_CAPTURE_KINGS: bool = true;
    /// Whether the board is the mirror image of the usual one (a1 light: italian, spanish). The
    /// layout is the same; only the numbering changes, 1 being the top-left square (a8).
    const MIRRORED: bool = false;
    /// How many occurrences of a position draw the game.
    const REPETITIONS: usize = 3;
    /// Whether each captured piece leaves the board as it is jumped (platform dama), so that
    /// its square is free for the rest of the capture; otherwise all leave after the move.
    const IMMEDIATE_REMOVAL: bool = false;
    /// Whether a flying king that captures must land on the square right behind the piece it
    /// takes (thai); otherwise on any empty square beyond it.
    const KING_LANDS_BEHIND: bool = false;

    /// Number of playable squares.
    const SQUARES: u32 = Self::HALF * Self::ROWS;
    /// Bits of one pair of rows including the ghost bit.
    const STRIDE: u32 = 2 * Self::HALF + 1;
    /// Every playable square.
    const ALL: Bitboard = Bitboard(geometry::all_mask(Self::HALF, Self::ROWS));
    /// The row where white men are crowned (squares 1..HALF).
    const WHITE_PROMOTION: Bitboard = Bitboard(geometry::row_mask(Self::HALF, 0));
    /// The row where black men are crowned.
    const BLACK_PROMOTION: Bitboard = Bitboard(geometry::row_mask(Self::HALF, Self::ROWS - 1));
    /// Squares holding white men at the start.
    const WHITE_START: Bitboard = Bitboard(geometry::rows_mask(
        Self::HALF,
        Self::ROWS - Self::START_ROWS,
        Self::ROWS,
    ));
    /// Squares holding black men at the start.
    const BLACK_START: Bitboard = Bitboard(geometry::rows_mask(Self::HALF, 0, Self::START_ROWS));
    /// Square index (0-based) to bit, 0xFF past the last square.
    const SQUARE_TO_BIT: [u8; 64] = geometry::square_to_bit(Self::HALF, Self::ROWS, Self::MIRRORED);
    /// Bit to square index (0-based), 0xFF for ghosts.
    const BIT_TO_SQUARE: [u8; 64] = geometry::bit_to_square(Self::HALF, Self::ROWS, Self::MIRRORED);
    /// Precomputed rays: `RAYS[dir][bit]` is every square reachable from `bit` in direction `dir`
    /// on an empty board (directions: 0 = up-left, 1 = up-right, 2 = down-left, 3 = down-right).
    const RAYS: [[u64; 64]; 4] = geometry::rays(Self::HALF, Self::ROWS);

    /// Row (0 = top, seen from White) of every bit of the layout.
    const ROW_OF: [u8; 64] = geometry::coord_of(Self::HALF, Self::ROWS, true);
    /// Column (0 = left, seen from White) of every bit of the layout.
    const COL_OF: [u8; 64] = geometry::coord_of(Self::HALF, Self::ROWS, false);

    /// The far row for a man of `color`.
    #[inline(always)]
    fn promotion_row(color: Color) -> Bitboard {
        match color {
            Color::White => Self::WHITE_PROMOTION,
            Color::Black => Self::BLACK_PROMOTION,
        }
    }

    /// The bit of a square.
    #[inline(always)]
    fn bit(square: Square) -> u32 {
        Self::SQUARE_TO_BIT[square.index()] as u32
    }

    /// The square of a bit (which must be a playable square).
    #[inline(always)]
    fn square(bit: u32) -> Square {
        Square::from_index(Self::BIT_TO_SQUARE[bit as usize])
    }
}

/// International draughts (FMJD), 10x10.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct International;

impl Variant for International {
    const KIND: VariantKind = VariantKind::International;
    const HALF: u32 = 5;
    const ROWS: u32 = 10;
    const START_ROWS: u32 = 4;
    const MEN_CAPTURE_BACKWARD: bool = true;
    const FLYING_KINGS: bool = true;
    const CAPTURE_RULE: CaptureRule = CaptureRule::Majority;
    const PROMOTE_MID_CAPTURE: bool = false;
    const FIRST: Color = Color::White;
    const DRAW_RULES: DrawRules = DrawRules::Fmjd100;
    const ALGEBRAIC: bool = false;
}

/// Brazilian draughts: international rules on an 8x8 board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Brazilian;

impl Variant for Brazilian {
    const KIND: VariantKind = VariantKind::Brazilian;
    const HALF: u32 = 4;
    const ROWS: u32 = 8;
    const START_ROWS: u32 = 3;
    const MEN_CAPTURE_BACKWARD: bool = true;
    const FLYING_KINGS: bool = true;
    const CAPTURE_RULE: CaptureRule = CaptureRule::Majority;
    const PROMOTE_MID_CAPTURE: bool = false;
    const FIRST: Color = Color::White;
    const DRAW_RULES: DrawRules = DrawRules::Fmjd64;
    const ALGEBRAIC: bool = true;
}

/// Russian draughts (shashki), 8x8.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Russian;

impl Variant for Russian {
    const KIND: VariantKind = VariantKind::Russian;
    const HALF: u32 = 4;
    const ROWS: u32 = 8;
    const START_ROWS: u32 = 3;
    const MEN_CAPTURE_BACKWARD: bool = true;
    const FLYING_KINGS: bool = true;
    const CAPTURE_RULE: CaptureRule = CaptureRule::Free;
    const PROMOTE_MID_CAPTURE: bool = true;
    const FIRST: Color = Color::White;
    const DRAW_RULES: DrawRules = DrawRules::Fmjd64;
    const ALGEBRAIC: bool = true;
}

/// Platform dama (seed 002), 10x10: international rules except that black moves first, among
/// the longest captures the one taking the most kings must be played, and captured pieces are
/// removed as they are jumped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Platform;

impl Variant for Platform {
    const KIND: VariantKind = VariantKind::Platform;
    const HALF: u32 = 5;
    const ROWS: u32 = 10;
    const START_ROWS: u32 = 4;
    const MEN_CAPTURE_BACKWARD: bool = true;
    const FLYING_KINGS: bool = true;
    const CAPTURE_RULE: CaptureRule = CaptureRule::MajorityThenKings;
    const PROMOTE_MID_CAPTURE: bool = false;
    const FIRST: Color = Color::Black;
    const DRAW_RULES: DrawRules = DrawRules::Platform;
    const ALGEBRAIC: bool = false;
    const IMMEDIATE_REMOVAL: bool = true;
}

/// Declares an 8x8 variant: 12 men each on the three nearest rows.
macro_rules! variant_8x8 {
    ($(#[$doc:meta])* $name:ident {$($c:ident: $t:ty = $v:expr;)*}) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl Variant for $name {
            const KIND: VariantKind = VariantKind::$name;
            const HALF: u32 = 4;
            const ROWS: u32 = 8;
            const START_ROWS: u32 = 3;
            $(const $c: $t = $v;)*
        }
    };
}

variant_8x8! {
    /// Filipino dama: the rules vary by region; this is the one published engine rule set,
    /// which is brazilian's (white first, men capture backward, flying kings, most pieces, a man
    /// passing the far row mid-capture stays a man).
    Filipino {
        MEN_CAPTURE_BACKWARD: bool = true;
        FLYING_KINGS: bool = true;
        CAPTURE_RULE: CaptureRule = CaptureRule::Majority;
        PROMOTE_MID_CAPTURE: bool = false;
        FIRST: Color = Color::White;
        DRAW_RULES: DrawRules = DrawRules::Fmjd64;
        ALGEBRAIC: bool = true;
    }
}

variant_8x8! {
    /// English draughts / American checkers: black (on 1-12) moves first, men move and capture
    /// forward only, kings move one square, any capture may be chosen but must be completed.
    English {
        MEN_CAPTURE_BACKWARD: bool = false;
        FLYING_KINGS: bool = false;
        CAPTURE_RULE: CaptureRule = CaptureRule::Free;
        PROMOTE_MID_CAPTURE: bool = false;
        FIRST: Color = Color::Black;
        DRAW_RULES: DrawRules = DrawRules::English;
        ALGEBRAIC: bool = false;
    }
}

variant_8x8! {
    /// Italian draughts: a1 light (1 = a8), white first, men move and capture forward only and
    /// never capture kings, kings move one square, the four Italian capture priorities.
    Italian {
        MEN_CAPTURE_BACKWARD: bool = false;
        FLYING_KINGS: bool = false;
        CAPTURE_RULE: CaptureRule = CaptureRule::Italian;
        PROMOTE_MID_CAPTURE: bool = false;
        FIRST: Color = Color::White;
        DRAW_RULES: DrawRules = DrawRules::Italian;
        ALGEBRAIC: bool = false;
        MEN_CAPTURE_KINGS: bool = false;
        MIRRORED: bool = true;
        REPETITIONS: usize = 4;
    }
}

variant_8x8! {
    /// Spanish draughts: a1 light (1 = a8), white first, men capture forward only, flying kings,
    /// the most pieces and among those the most kings must be taken.
    Spanish {
        MEN_CAPTURE_BACKWARD: bool = false;
        FLYING_KINGS: bool = true;
        CAPTURE_RULE: CaptureRule = CaptureRule::MajorityThenKings;
        PROMOTE_MID_CAPTURE: bool = false;
        FIRST: Color = Color::White;
        DRAW_RULES: DrawRules = DrawRules::Plain;
        ALGEBRAIC: bool = false;
        MIRRORED: bool = true;
    }
}

variant_8x8! {
    /// American pool checkers: black first, men capture backward, flying kings, free capture, a
    /// man passing the far row mid-capture stays a man.
    Pool {
        MEN_CAPTURE_BACKWARD: bool = true;
        FLYING_KINGS: bool = true;
        CAPTURE_RULE: CaptureRule = CaptureRule::Free;
        PROMOTE_MID_CAPTURE: bool = false;
        FIRST: Color = Color::Black;
        DRAW_RULES: DrawRules = DrawRules::Plain;
        ALGEBRAIC: bool = true;
    }
}

variant_8x8! {
    /// Czech draughts: white first, men capture forward only, flying kings, a king must capture
    /// when one can, otherwise free choice.
    Czech {
        MEN_CAPTURE_BACKWARD: bool = false;
        FLYING_KINGS: bool = true;
        CAPTURE_RULE: CaptureRule = CaptureRule::KingFirst;
        PROMOTE_MID_CAPTURE: bool = false;
        FIRST: Color = Color::White;
        DRAW_RULES: DrawRules = DrawRules::Plain;
        ALGEBRAIC: bool = true;
    }
}

/// Thai draughts (mak-hot): 8 men each on the two nearest rows, black first, men move and
/// capture forward only, flying kings that land right behind the piece they take, free choice
/// of capture, captured pieces removed as they are jumped, crowning ends the move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Thai;

impl Variant for Thai {
    const KIND: VariantKind = VariantKind::Thai;
    const HALF: u32 = 4;
    const ROWS: u32 = 8;
    const START_ROWS: u32 = 2;
    const MEN_CAPTURE_BACKWARD: bool = false;
    const FLYING_KINGS: bool = true;
    const CAPTURE_RULE: CaptureRule = CaptureRule::Free;
    const PROMOTE_MID_CAPTURE: bool = false;
    const FIRST: Color = Color::Black;
    const DRAW_RULES: DrawRules = DrawRules::Plain;
    const ALGEBRAIC: bool = true;
    const IMMEDIATE_REMOVAL: bool = true;
    const KING_LANDS_BEHIND: bool = true;
}

/// Compile-time construction of the padded board layout's masks and rays.
pub mod geometry {
    /// Bit of the 0-based square index `i`.
    pub const fn bit_of(half: u32, i: u32) -> u32 {
        i + i / (2 * half)
    }

    /// Row (0 = top) and column (0-based, over all columns) of square index `i`.
    pub const fn row_col(half: u32, i: u32) -> (i32, i32) {
        let row = i / half;
        let pos = i % half;
        let col = if row & 1 == 0 { 2 * pos + 1 } else { 2 * pos };
        (row as i32, col as i32)
    }

    /// Square index at (row, col), if that is a playable square.
    pub const fn at(half: u32, rows: u32, row: i32, col: i32) -> Option<u32> {
        if row < 0 || col < 0 || row >= rows as i32 || col >= 2 * half as i32 {
            return None;
        }
        let dark = if row % 2 == 0 {
            col % 2 == 1
        } else {
            col % 2 == 0
        };
        if !dark {
            return None;
        }
        Some(row as u32 * half + col as u32 / 2)
    }

    /// Every playable square's bit.
    pub const fn all_mask(half: u32, rows: u32) -> u64 {
        rows_mask(half, 0, rows)
    }

    /// The squares of one row.
    pub const fn row_mask(half: u32, row: u32) -> u64 {
        rows_mask(half, row, row + 1)
    }

    /// The squares of rows `from..to`.
    pub const fn rows_mask(half: u32, from: u32, to: u32) -> u64 {
        let mut m = 0u64;
        let mut i = from * half;
        while i < to * half {
            m |= 1u64 << bit_of(half, i);
            i += 1;
        }
        m
    }

    /// The layout index of square index `i` (the same, or on a mirrored board the square at the
    /// other end of its row).
    pub const fn layout_index(half: u32, i: u32, mirrored: bool) -> u32 {
        if mirrored {
            i / half * half + (half - 1 - i % half)
        } else {
            i
        }
    }

    /// Square index to bit table.
    pub const fn square_to_bit(half: u32, rows: u32, mirrored: bool) -> [u8; 64] {
        let mut t = [0xFFu8; 64];
        let mut i = 0;
        while i < half * rows {
            t[i as usize] = bit_of(half, layout_index(half, i, mirrored)) as u8;
            i += 1;
        }
        t
    }

    /// Bit to square index table.
    pub const fn bit_to_square(half: u32, rows: u32, mirrored: bool) -> [u8; 64] {
        let mut t = [0xFFu8; 64];
        let mut i = 0;
        while i < half * rows {
            t[bit_of(half, layout_index(half, i, mirrored)) as usize] = i as u8;
            i += 1;
        }
        t
    }

    /// Row or column of every bit (0 for ghosts).
    pub const fn coord_of(half: u32, rows: u32, row: bool) -> [u8; 64] {
        let mut t = [0u8; 64];
        let mut i = 0;
        while i < half * rows {
            let (r, c) = row_col(half, i);
            t[bit_of(half, i) as usize] = if row { r as u8 } else { c as u8 };
            i += 1;
        }
        t
    }

    /// Direction deltas in (row, col): up-left, up-right, down-left, down-right.
    pub const DELTAS: [(i32, i32); 4] = [(-1, -1), (-1, 1), (1, -1), (1, 1)];

    /// Rays from every square in every direction.
    pub const fn rays(half: u32, rows: u32) -> [[u64; 64]; 4] {
        let mut t = [[0u64; 64]; 4];
        let mut d = 0;
        while d < 4 {
            let mut i = 0;
            while i < half * rows {
                let (r, c) = row_col(half, i);
                let mut m = 0u64;
                let mut k = 1;
                while let Some(j) = at(half, rows, r + k * DELTAS[d].0, c + k * DELTAS[d].1) {
                    m |= 1u64 << bit_of(half, j);
                    k += 1;
                }
                t[d][bit_of(half, i) as usize] = m;
                i += 1;
            }
            d += 1;
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_to_its_variant_and_no_name_is_shared() {
        let mut seen = std::collections::HashSet::new();
        for k in VariantKind::ALL {
            assert_eq!(k.names()[0], k.name());
            for n in k.names() {
                assert!(seen.insert(*n), "{n} names two variants");
                assert_eq!(n.parse::<VariantKind>(), Ok(k));
                assert_eq!(n.to_ascii_uppercase().parse::<VariantKind>(), Ok(k));
            }
            assert_eq!(k.hub_name().parse::<VariantKind>(), Ok(k));
        }
        let e = "frisian".parse::<VariantKind>().unwrap_err().to_string();
        assert!(e.contains("'frisian'"), "{e}");
        assert!(seen.iter().all(|n| e.contains(n)), "{e}");
    }
}
