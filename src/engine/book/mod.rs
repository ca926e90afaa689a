//! The opening book: positions near the start with a score for each of their moves, read from
//! a file that `damast book build` wrote ([`file`]), and the choice of a book move in play.
//!
//! The file holds what the builder searched: each stored position with the search score of
//! every legal move. When a book is read, the scores are backed up through the tree from the
//! start position (a move into a stored position is worth what the best move there is worth,
//! negated), so a move's score in play is the result of the whole subtree below it.
//!
//! In play only moves into stored positions are candidates: a move whose successor was never
//! expanded has only a short search behind it, which the engine's own search beats.

pub mod file;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, OnceLock};

use crate::core::movegen::canonical_moves;
use crate::core::moves::Move;
use crate::core::position::Position;
use crate::core::variant::{Variant, VariantKind};
use crate::engine::rng::Rng;
pub use file::{BookError, RawBook};

/// How the engine uses an opening book.
#[derive(Clone, Debug)]
pub struct BookOptions {
    /// Whether moves are taken from the book at all.
    pub enabled: bool,
    /// The book is used only in positions fewer than this many plies from the start.
    pub max_ply: u32,
    /// Moves within this many hundredths of a man of the best are candidates.
    pub margin: i32,
    /// A book to use instead of the built-in one.
    pub file: Option<Arc<Book>>,
}

impl BookOptions {
    /// The default ply limit: the whole book.
    pub const MAX_PLY: u32 = 60;
    /// The default margin in hundredths of a man.
    pub const MARGIN: i32 = 4;

    /// The settings of a playing engine: the built-in book, whole, with the default margin.
    pub fn on() -> BookOptions {
        BookOptions {
            enabled: true,
            ..BookOptions::default()
        }
    }
}

impl Default for BookOptions {
    /// No book (the settings of tools that must search every move: bench, self-play, tuning).
    fn default() -> Self {
        BookOptions {
            enabled: false,
            max_ply: Self::MAX_PLY,
            margin: Self::MARGIN,
            file: None,
        }
    }
}

/// One stored position.
#[derive(Clone, Debug)]
struct Node {
    /// The score of each move (canonical order) backed up through the book, for the mover.
    score: Box<[i16]>,
    /// Fewest plies from the start position (`u8::MAX` when not reached from it).
    ply: u8,
}

/// A book move in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove<V: Variant> {
    /// The move.
    pub mv: Move<V>,
    /// Its score for the side that plays it, backed up through the book.
    pub score: i32,
    /// Whether the position after it is in the book (only such moves are played from it).
    pub in_book: bool,
}

/// Size and shape of a book.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookStats {
    /// Positions stored.
    pub positions: usize,
    /// Positions per ply from the start (index = ply).
    pub per_ply: Vec<usize>,
    /// Stored positions that the moves from the start position do not reach.
    pub unreachable: usize,
    /// Nodes searched per move when the book was built.
    pub nodes: u64,
}

/// An opening book for one variant, ready for play.
#[derive(Clone, Debug)]
pub struct Book {
    game_type: u16,
    nodes: u64,
    nodes_by_hash: HashMap<u64, Node>,
}

impl Book {
    /// The book of variant `V` from its stored form: checks the variant and the hash keys, then
    /// backs the scores up from the start position.
    pub fn new<V: Variant>(raw: RawBook) -> Result<Book, BookError> {
        let expected = V::GAME_TYPE as u16;
        if raw.game_type != expected {
            return Err(BookError::Variant {
                expected,
                found: raw.game_type,
            });
        }
        let start = Position::<V>::start();
        if raw.start_hash != start.hash() {
            return Err(BookError::HashKeys);
        }
        let plies = plies_from_start(&raw, &start);
        let mut values: HashMap<u64, Box<[i16]>> = HashMap::with_capacity(raw.positions.len());
        let mut on_path = Vec::new();
        back_up(&raw, &start, &mut values, &mut on_path);
        let nodes_by_hash = raw
            .positions
            .iter()
            .map(|(&hash, scores)| {
                let score = values
                    .remove(&hash)
                    .unwrap_or_else(|| scores.clone().into_boxed_slice());
                let ply = plies.get(&hash).copied().unwrap_or(u8::MAX);
                (hash, Node { score, ply })
            })
            .collect();
        Ok(Book {
            game_type: expected,
            nodes: raw.nodes,
            nodes_by_hash,
        })
    }

    /// The book from its stored form, for the variant its GameType names.
    pub fn from_raw(raw: RawBook) -> Result<Book, BookError> {
        let kind = VariantKind::ALL
            .into_iter()
            .find(|k| k.game_type() == raw.game_type as u32)
            .ok_or(BookError::UnknownVariant(raw.game_type))?;
        crate::with_variant!(kind, V => Book::new::<V>(raw))
    }

    /// Reads a book file for whichever variant it was built.
    pub fn load_any(path: &std::path::Path) -> Result<Book, BookError> {
        Book::from_raw(RawBook::load(path)?)
    }

    /// Reads the book of variant `V` from a file's bytes.
    pub fn from_bytes<V: Variant>(bytes: &[u8]) -> Result<Book, BookError> {
        Book::new::<V>(RawBook::from_bytes(bytes)?)
    }

    /// Reads the book of variant `V` from a file.
    pub fn load<V: Variant>(path: &std::path::Path) -> Result<Book, BookError> {
        Book::new::<V>(RawBook::load(path)?)
    }

    /// PDN GameType of the book's variant.
    pub fn game_type(&self) -> u16 {
        self.game_type
    }

    /// Positions stored.
    pub fn len(&self) -> usize {
        self.nodes_by_hash.len()
    }

    /// Whether the book holds no position.
    pub fn is_empty(&self) -> bool {
        self.nodes_by_hash.is_empty()
    }

    /// The stored node of `pos`, if it is this book's variant, stored, and has as many moves as
    /// the book says (a hash collision has not).
    fn node<V: Variant>(&self, pos: &Position<V>) -> Option<(&Node, crate::core::MoveList<V>)> {
        if V::GAME_TYPE as u16 != self.game_type {
            return None;
        }
        let node = self.nodes_by_hash.get(&pos.hash())?;
        let moves = canonical_moves(pos);
        (moves.len() == node.score.len()).then_some((node, moves))
    }

    /// Fewest plies from the start position to `pos`, if it is in the book and reached.
    pub fn ply<V: Variant>(&self, pos: &Position<V>) -> Option<u32> {
        let (node, _) = self.node(pos)?;
        (node.ply != u8::MAX).then_some(node.ply as u32)
    }

    /// Every move of `pos` with its book score, best first; `None` when `pos` is not in the book.
    pub fn moves<V: Variant>(&self, pos: &Position<V>) -> Option<Vec<BookMove<V>>> {
        let (node, moves) = self.node(pos)?;
        let mut out: Vec<BookMove<V>> = moves
            .iter()
            .zip(node.score.iter())
            .map(|(m, &s)| BookMove {
                mv: *m,
                score: s as i32,
                in_book: self.node(&pos.make(m)).is_some(),
            })
            .collect();
        out.sort_by_key(|b| std::cmp::Reverse(b.score));
        Some(out)
    }

    /// The moves that play may choose in `pos`: into a stored position and within `margin` of
    /// the best move (stored or not). Empty when the book has nothing worth playing.
    pub fn candidates<V: Variant>(&self, pos: &Position<V>, margin: i32) -> Vec<BookMove<V>> {
        let Some(moves) = self.moves(pos) else {
            return Vec::new();
        };
        let best = moves.first().map_or(0, |b| b.score);
        moves
            .into_iter()
            .filter(|b| b.in_book && b.score >= best - margin.max(0))
            .collect()
    }

    /// A random candidate move ([`candidates`](Self::candidates)), weighted by score: the best
    /// has weight `margin + 1`, one a hundredth worse `margin`, and so on down to 1.
    pub fn choose<V: Variant>(
        &self,
        pos: &Position<V>,
        margin: i32,
        rng: &mut Rng,
    ) -> Option<BookMove<V>> {
        choose_among(&self.candidates(pos, margin), margin, rng)
    }

    /// Size and shape.
    pub fn stats(&self) -> BookStats {
        let mut per_ply = Vec::new();
        let mut unreachable = 0;
        for node in self.nodes_by_hash.values() {
            if node.ply == u8::MAX {
                unreachable += 1;
                continue;
            }
            let p = node.ply as usize;
            if per_ply.len() <= p {
                per_ply.resize(p + 1, 0);
            }
            per_ply[p] += 1;
        }
        BookStats {
            positions: self.len(),
            per_ply,
            unreachable,
            nodes: self.nodes,
        }
    }
}

/// A random move of `candidates` (best first, all within `margin` of the first), weighted by
/// score: the best has weight `margin + 1`, one a hundredth worse `margin`, and so on down to 1.
pub fn choose_among<V: Variant>(
    candidates: &[BookMove<V>],
    margin: i32,
    rng: &mut Rng,
) -> Option<BookMove<V>> {
    let best = candidates.first()?.score;
    let weight = |b: &BookMove<V>| (margin.max(0) + 1 - (best - b.score)) as u64;
    let total: u64 = candidates.iter().map(weight).sum();
    let mut r = rng.next_u64() % total;
    for b in candidates {
        let w = weight(b);
        if r < w {
            return Some(*b);
        }
        r -= w;
    }
    candidates.last().copied()
}

/// Fewest plies from `start` to every stored position (breadth first through stored ones).
fn plies_from_start<V: Variant>(raw: &RawBook, start: &Position<V>) -> HashMap<u64, u8> {
    let mut plies = HashMap::new();
    let mut queue = VecDeque::new();
    if raw.positions.contains_key(&start.hash()) {
        plies.insert(start.hash(), 0u8);
        queue.push_back((*start, 0u8));
    }
    while let Some((pos, ply)) = queue.pop_front() {
        if ply == u8::MAX - 1 {
            continue;
        }
        for m in canonical_moves(&pos).iter() {
            let next = pos.make(m);
            let h = next.hash();
            if raw.positions.contains_key(&h) && !plies.contains_key(&h) {
                plies.insert(h, ply + 1);
                queue.push_back((next, ply + 1));
            }
        }
    }
    plies
}

/// Backs the scores of `pos` and of every stored position below it up into `values`; returns
/// the value of `pos` for its side to move. A move into a position on the current path (a
/// repetition) keeps its searched score.
fn back_up<V: Variant>(
    raw: &RawBook,
    pos: &Position<V>,
    values: &mut HashMap<u64, Box<[i16]>>,
    on_path: &mut Vec<u64>,
) -> Option<i16> {
    let hash = pos.hash();
    if let Some(v) = values.get(&hash) {
        return v.iter().copied().max();
    }
    let searched = raw.positions.get(&hash)?;
    let moves = canonical_moves(pos);
    if moves.len() != searched.len() {
        return None;
    }
    on_path.push(hash);
    let mut scores = searched.clone();
    for (m, s) in moves.iter().zip(scores.iter_mut()) {
        let next = pos.make(m);
        if on_path.contains(&next.hash()) {
            continue;
        }
        if let Some(v) = back_up(raw, &next, values, on_path) {
            *s = v.saturating_neg();
        }
    }
    on_path.pop();
    let best = scores.iter().copied().max();
    values.insert(hash, scores.into_boxed_slice());
    best
}

/// The bytes of the book built into the binary for international draughts.
pub const INTERNATIONAL_BOOK: &[u8] = include_bytes!("../../../book/international.book");

/// The books built into the binary, by variant (every variant has one; how each was made is
/// in book/README.md).
const BUILTIN: &[(VariantKind, &[u8])] = &[
    (VariantKind::International, INTERNATIONAL_BOOK),
    (
        VariantKind::Brazilian,
        include_bytes!("../../../book/brazilian.book"),
    ),
    (
        VariantKind::Russian,
        include_bytes!("../../../book/russian.book"),
    ),
    (
        VariantKind::English,
        include_bytes!("../../../book/english.book"),
    ),
    (
        VariantKind::Italian,
        include_bytes!("../../../book/italian.book"),
    ),
    (
        VariantKind::Spanish,
        include_bytes!("../../../book/spanish.book"),
    ),
    (VariantKind::Pool, include_bytes!("../../../book/pool.book")),
    (
        VariantKind::Czech,
        include_bytes!("../../../book/czech.book"),
    ),
    (
        VariantKind::Platform,
        include_bytes!("../../../book/platform.book"),
    ),
    (
        VariantKind::Filipino,
        include_bytes!("../../../book/filipino.book"),
    ),
    (VariantKind::Thai, include_bytes!("../../../book/thai.book")),
];

/// The built-in book of variant `V`, read on first use; `None` when there is none.
pub fn builtin<V: Variant>() -> Option<&'static Book> {
    static CACHE: [OnceLock<Option<Book>>; VariantKind::ALL.len()] =
        [const { OnceLock::new() }; VariantKind::ALL.len()];
    let index = VariantKind::ALL.iter().position(|k| *k == V::KIND)?;
    CACHE[index]
        .get_or_init(|| {
            let (_, bytes) = BUILTIN.iter().find(|(k, _)| *k == V::KIND)?;
            match Book::from_bytes::<V>(bytes) {
                Ok(b) => Some(b),
                Err(e) => {
                    log::error!("the built-in {} book is unusable: {e}", V::KIND.name());
                    None
                }
            }
        })
        .as_ref()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::variant::International;
    use std::collections::BTreeMap;

    type P = Position<International>;

    /// A book of the start position and the positions after two of its moves, with scores
    /// chosen so that backing up changes the order.
    fn small_book() -> (RawBook, Vec<Move<International>>) {
        let start = P::start();
        let moves = canonical_moves(&start);
        let mut positions = BTreeMap::new();
        let mut root: Vec<i16> = (0..moves.len() as i16).collect();
        root[0] = 50; // the searched best ...
        root[1] = 10;
        positions.insert(start.hash(), root);
        // ... but below move 0 the opponent has a reply worth 80 to him: move 0 is worth -80
        let a = start.make(&moves[0]);
        let mut after_a = vec![-100i16; canonical_moves(&a).len()];
        after_a[3] = 80;
        positions.insert(a.hash(), after_a);
        // below move 1 the best reply is worth -20 to the opponent: move 1 is worth +20
        let b = start.make(&moves[1]);
        positions.insert(b.hash(), vec![-20i16; canonical_moves(&b).len()]);
        let raw = RawBook {
            game_type: 20,
            start_hash: start.hash(),
            nodes: 100,
            positions,
        };
        (raw, moves.as_slice().to_vec())
    }

    #[test]
    fn scores_are_backed_up_and_only_stored_successors_are_played() {
        let (raw, moves) = small_book();
        let book = Book::new::<International>(raw).unwrap();
        let start = P::start();
        let listed = book.moves(&start).unwrap();
        assert_eq!(listed.len(), moves.len());
        assert_eq!((listed[0].mv, listed[0].score), (moves[1], 20));
        assert!(listed[0].in_book);
        let a = listed.iter().find(|b| b.mv == moves[0]).unwrap();
        assert_eq!((a.score, a.in_book), (-80, true));
        // the best move stands alone within a margin of 0; with a wide margin the other stored
        // successor joins, and never a move into an unstored position
        let c0 = book.candidates(&start, 0);
        assert_eq!(c0.iter().map(|b| b.mv).collect::<Vec<_>>(), vec![moves[1]]);
        let wide = book.candidates(&start, 1000);
        assert_eq!(wide.len(), 2);
        assert_eq!(book.ply(&start), Some(0));
        assert_eq!(book.ply(&start.make(&moves[1])), Some(1));
        assert_eq!(book.ply(&start.make(&moves[2])), None);
        let s = book.stats();
        assert_eq!(
            (s.positions, s.per_ply.clone(), s.unreachable),
            (3, vec![1, 2], 0)
        );
    }

    #[test]
    fn choice_is_weighted_within_the_margin() {
        let (raw, moves) = small_book();
        let book = Book::new::<International>(raw).unwrap();
        let start = P::start();
        let mut rng = Rng::new(7);
        for _ in 0..50 {
            assert_eq!(book.choose(&start, 0, &mut rng).unwrap().mv, moves[1]);
        }
        let picks: Vec<_> = (0..2000)
            .map(|_| book.choose(&start, 200, &mut rng).unwrap().mv)
            .collect();
        let a = picks.iter().filter(|m| **m == moves[0]).count();
        // weights 201 (score 20) and 101 (score -80): about a third for the worse move
        assert!((500..830).contains(&a), "{a}");
    }

    /// Checks the built-in book of `V`: it reads, every stored position reached from the start
    /// lists exactly its legal moves, every move play may choose leads to a stored position,
    /// and no stored position is unreachable.
    fn check_built_in_book<V: Variant>() {
        let (_, bytes) = BUILTIN
            .iter()
            .find(|(k, _)| *k == V::KIND)
            .expect("a built-in book");
        let raw = RawBook::from_bytes(bytes).unwrap();
        let book = builtin::<V>().expect("a built-in book");
        assert_eq!(book.len(), raw.positions.len());
        let stats = book.stats();
        assert_eq!((stats.per_ply[0], stats.unreachable), (1, 0), "{stats:?}");
        assert!(
            stats.per_ply.len() > 5,
            "{} book depth {stats:?}",
            V::KIND.name()
        );
        let mut stack = vec![Position::<V>::start()];
        let mut seen = std::collections::HashSet::new();
        while let Some(pos) = stack.pop() {
            if !seen.insert(pos.hash()) {
                continue;
            }
            let moves = book.moves(&pos).expect("a stored position");
            let legal = crate::core::movegen::legal_moves(&pos);
            assert_eq!(moves.len(), legal.len());
            assert!(moves.iter().all(|b| legal.as_slice().contains(&b.mv)));
            for b in &moves {
                if b.in_book {
                    stack.push(pos.make(&b.mv));
                }
            }
            for c in book.candidates(&pos, BookOptions::MARGIN) {
                assert!(book.moves(&pos.make(&c.mv)).is_some());
            }
        }
        assert_eq!(seen.len(), book.len(), "{}", V::KIND.name());
    }

    #[test]
    fn every_variant_has_a_valid_built_in_book_of_legal_moves() {
        for kind in VariantKind::ALL {
            crate::with_variant!(kind, V => check_built_in_book::<V>());
        }
    }

    #[test]
    fn wrong_variant_keys_and_collisions_are_refused() {
        let (mut raw, _) = small_book();
        raw.game_type = 26;
        assert!(matches!(
            Book::new::<International>(raw.clone()),
            Err(BookError::Variant { found: 26, .. })
        ));
        raw.game_type = 20;
        raw.start_hash ^= 1;
        assert_eq!(
            Book::new::<International>(raw).unwrap_err(),
            BookError::HashKeys
        );
        // a stored position whose move count differs from the real one is ignored
        let (mut raw, _) = small_book();
        let start = P::start();
        raw.positions.insert(start.hash(), vec![0; 3]);
        let book = Book::new::<International>(raw).unwrap();
        assert!(book.moves(&start).is_none());
        assert!(book.choose(&start, 10, &mut Rng::new(1)).is_none());
    }
}
