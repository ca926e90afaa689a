//! Property tests of the core formats and invariants, for every variant.
//!
//! - FEN write/parse round trip, Hub and DXP board string round trips;
//! - the incremental Zobrist hash equals the hash computed from scratch along random games
//!   (and the hash predicted before a move equals the one after it);
//! - every legal move reads back from its Hub form and its PDN form;
//! - `fen::parse` and `notation::parse` return errors, never panic, on arbitrary text;
//! - `movegen::count`, `movegen::has_capture`, `movegen::has_quiet_move` and
//!   `movegen::has_promotion_move` agree with `movegen::legal_moves`.
//!
//! Positions come from random placements of men and kings and from random games from the start
//! position. A failing case is shrunk and printed by proptest; set `PROPTEST_RNG_SEED` to replay a
//! run and `PROPTEST_CASES` to run more cases.

use damast::core::{fen, movegen, notation, Color, MoveList, Piece, Position, Square, Variant};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// A position from one code per square (most codes are empty squares) and the side to move. A man
/// on its own promotion row, which no game can reach, is made a king instead.
fn from_codes<V: Variant>(codes: &[u8], black_to_move: bool) -> Position<V> {
    let mut pieces = Vec::new();
    for (i, &c) in codes.iter().enumerate() {
        let number = i as u32 + 1;
        let (color, mut king) = match c {
            0..=5 => continue,
            6 | 7 => (Color::White, false),
            8 | 9 => (Color::Black, false),
            10 => (Color::White, true),
            _ => (Color::Black, true),
        };
        let white_far_row = number <= V::HALF;
        let black_far_row = number > V::SQUARES - V::HALF;
        if !king
            && ((color == Color::White && white_far_row)
                || (color == Color::Black && black_far_row))
        {
            king = true;
        }
        pieces.push((
            Square::from_number(number, V::SQUARES).unwrap(),
            Piece::new(color, king),
        ));
    }
    let side = if black_to_move {
        Color::Black
    } else {
        Color::White
    };
    Position::from_pieces(&pieces, side).expect("placement is valid by construction")
}

/// Random placements of men and kings of both sides.
fn arb_placement<V: Variant>() -> impl Strategy<Value = Position<V>> {
    (
        prop::collection::vec(0u8..12, V::SQUARES as usize),
        any::<bool>(),
    )
        .prop_map(|(codes, black)| from_codes::<V>(&codes, black))
}

/// Every position of a game from the start position in which `choices[i]` picks the i-th move
/// (modulo the number of legal moves); the game stops early when the side to move has no move.
fn play<V: Variant>(choices: &[u32]) -> Vec<Position<V>> {
    let mut pos = Position::<V>::start();
    let mut seen = vec![pos];
    for &c in choices {
        let list = movegen::legal_moves(&pos);
        if list.is_empty() {
            break;
        }
        pos = pos.make(&list[c as usize % list.len()]);
        seen.push(pos);
    }
    seen
}

/// Positions reached by random play from the start position.
fn arb_game_position<V: Variant>() -> impl Strategy<Value = Position<V>> {
    prop::collection::vec(any::<u32>(), 0..160).prop_map(|c| *play::<V>(&c).last().unwrap())
}

/// Either kind of position.
fn arb_position<V: Variant>() -> impl Strategy<Value = Position<V>> {
    prop_oneof![arb_placement::<V>(), arb_game_position::<V>()]
}

/// Text that looks like FEN or move text, to reach deep into the parsers.
fn fen_like() -> impl Strategy<Value = String> {
    "[WBKwbkHFGP?0-9:,.\\- xX\"a-j]{0,60}"
}

fn move_like() -> impl Strategy<Value = String> {
    "[0-9x:X\\-a-jk ]{0,30}"
}

fn config() -> Config {
    Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(256),
        // Do not write regression files into the tree; proptest prints the shrunk case.
        failure_persistence: None,
        ..Config::default()
    }
}

macro_rules! variant_properties {
    ($module:ident, $variant:ty) => {
        mod $module {
            use super::*;
            type V = $variant;

            proptest! {
                #![proptest_config(config())]

                #[test]
                fn fen_round_trip(pos in arb_position::<V>()) {
                    let text = fen::write(&pos);
                    let back = fen::parse::<V>(&text);
                    prop_assert_eq!(back.clone(), Ok(pos), "FEN {}", text);
                    let back = back.unwrap();
                    prop_assert_eq!(fen::write(&back), text.clone());
                    prop_assert_eq!(back.hash(), pos.hash(), "hash differs after FEN round trip of {}", text);
                }

                #[test]
                fn hub_and_dxp_round_trip(pos in arb_position::<V>()) {
                    let hub = pos.to_hub();
                    prop_assert_eq!(hub.chars().count(), 1 + V::SQUARES as usize);
                    prop_assert!(hub.chars().skip(1).all(|c| "wbWBe".contains(c)), "Hub {}", hub);
                    prop_assert_eq!(Position::<V>::from_hub(&hub), Ok(pos), "Hub {}", hub);
                    let dxp = pos.to_dxp();
                    prop_assert_eq!(dxp.chars().count(), 1 + V::SQUARES as usize);
                    prop_assert!(dxp.starts_with(['W', 'Z']), "DXP {}", dxp);
                    prop_assert!(dxp.chars().skip(1).all(|c| "wzWZe".contains(c)), "DXP {}", dxp);
                    prop_assert_eq!(Position::<V>::from_dxp(&dxp), Ok(pos), "DXP {}", dxp);
                }

                #[test]
                fn incremental_hash_along_games(choices in prop::collection::vec(any::<u32>(), 0..300)) {
                    for pos in play::<V>(&choices) {
                        prop_assert_eq!(pos.hash(), pos.compute_hash(), "FEN {}", fen::write(&pos));
                    }
                }

                #[test]
                fn incremental_hash_after_every_move(pos in arb_position::<V>()) {
                    prop_assert_eq!(pos.hash(), pos.compute_hash());
                    for m in movegen::legal_moves(&pos).iter() {
                        let after = pos.make(m);
                        prop_assert_eq!(
                            after.hash(), after.compute_hash(),
                            "after {} in {}", notation::hub(m), fen::write(&pos)
                        );
                        prop_assert_eq!(
                            pos.hash_after(m), after.hash(),
                            "hash_after {} in {}", notation::hub(m), fen::write(&pos)
                        );
                    }
                }

                #[test]
                fn every_move_reads_back_from_hub_and_pdn(pos in arb_position::<V>()) {
                    let f = fen::write(&pos);
                    for m in movegen::legal_moves(&pos).iter() {
                        let hub = notation::hub(m);
                        prop_assert_eq!(notation::parse(&pos, &hub), Ok(*m), "Hub {} in {}", hub, f);
                        prop_assert_eq!(notation::parse_hub(&pos, &hub), Ok(*m), "parse_hub {} in {}", hub, f);
                        let pdn = notation::pdn(&pos, m);
                        prop_assert_eq!(notation::parse(&pos, &pdn), Ok(*m), "PDN {} in {}", pdn, f);
                    }
                }

                #[test]
                fn count_and_has_capture_agree_with_legal_moves(pos in arb_position::<V>()) {
                    let list = movegen::legal_moves(&pos);
                    prop_assert_eq!(movegen::count(&pos), list.len() as u64, "FEN {}", fen::write(&pos));
                    prop_assert_eq!(
                        movegen::has_capture(&pos),
                        list.iter().any(|m| m.is_capture()),
                        "FEN {}", fen::write(&pos)
                    );
                    let mut quiet = MoveList::new();
                    movegen::generate_quiet(&pos, &mut quiet);
                    prop_assert_eq!(
                        movegen::has_quiet_move(&pos),
                        !quiet.is_empty(),
                        "FEN {}", fen::write(&pos)
                    );
                    prop_assert_eq!(
                        movegen::has_promotion_move(&pos),
                        quiet.iter().any(|m| m.is_promotion()),
                        "FEN {}", fen::write(&pos)
                    );
                    // Either every move captures or none does.
                    prop_assert!(
                        list.iter().all(|m| m.is_capture()) || list.iter().all(|m| !m.is_capture()),
                        "FEN {}", fen::write(&pos)
                    );
                }

                #[test]
                fn fen_parse_never_panics(text in any::<String>(), like in fen_like()) {
                    let _ = fen::parse::<V>(&text);
                    if let Ok(p) = fen::parse::<V>(&like) {
                        // Whatever it accepts must be a position it can write and read again.
                        prop_assert_eq!(fen::parse::<V>(&fen::write(&p)), Ok(p), "from {:?}", like);
                    }
                }

                #[test]
                fn move_parse_never_panics(
                    pos in arb_position::<V>(),
                    text in any::<String>(),
                    like in move_like(),
                ) {
                    let _ = notation::parse(&pos, &text);
                    let _ = notation::parse_hub(&pos, &text);
                    if let Ok(m) = notation::parse(&pos, &like) {
                        prop_assert!(
                            movegen::legal_moves(&pos).iter().any(|l| *l == m),
                            "{:?} read as an illegal move in {}", like, fen::write(&pos)
                        );
                    }
                    let _ = notation::parse_hub(&pos, &like);
                }
            }
        }
    };
}

variant_properties!(international, damast::core::International);
variant_properties!(brazilian, damast::core::Brazilian);
variant_properties!(russian, damast::core::Russian);
variant_properties!(english, damast::core::English);
variant_properties!(spanish, damast::core::Spanish);

/// Move texts built from a legal move's squares (with random separators and case) must never make
/// the parser panic, and any move they name must be legal.
#[test]
fn near_miss_move_texts() {
    use damast::core::International;
    let mut runner = proptest::test_runner::TestRunner::new(config());
    runner
        .run(
            &(arb_position::<International>(), any::<u64>()),
            |(pos, seed)| {
                let list = movegen::legal_moves(&pos);
                let mut s = seed;
                for m in list.iter() {
                    let mut squares: Vec<u32> = vec![m.from().number(), m.to().number()];
                    squares.extend(m.captured_squares().map(|q| q.number()));
                    s = s
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let seps = ["x", "-", ":", "X", "x-", ""];
                    let sep = seps[(s >> 33) as usize % seps.len()];
                    let take = 1 + (s >> 40) as usize % squares.len();
                    let text = squares[..take]
                        .iter()
                        .map(|n| n.to_string())
                        .collect::<Vec<_>>()
                        .join(sep);
                    if let Ok(found) = notation::parse(&pos, &text) {
                        prop_assert!(
                            list.iter().any(|l| *l == found),
                            "{} in {}",
                            text,
                            fen::write(&pos)
                        );
                    }
                    let _ = notation::parse_hub(&pos, &text);
                }
                Ok(())
            },
        )
        .unwrap();
}

/// Positions where a legal move's PDN form did not read back (found by the properties above); kept
/// as a fixed test so that they are checked on every run.
#[test]
fn pdn_round_trip_known_cases() {
    fn check<V: Variant>(f: &str, failures: &mut Vec<String>) {
        let pos: Position<V> = fen::parse(f).unwrap();
        for m in movegen::legal_moves(&pos).iter() {
            let hub = notation::hub(m);
            let got = notation::parse(&pos, &hub);
            if got != Ok(*m) {
                failures.push(format!("{f}: Hub {hub} reads as {got:?}"));
            }
            let pdn = notation::pdn(&pos, m);
            let got = notation::parse(&pos, &pdn);
            if got != Ok(*m) {
                failures.push(format!("{f}: PDN {pdn} of {hub} reads as {got:?}"));
            }
        }
    }
    use damast::core::Russian;
    let mut failures = Vec::new();
    // Russian, free capture: the one-jump 15x8 (taking 11) and a loop 15x22x31x24x15x8 share from
    // and to; the full path of the first is just "15x8", which also fits the second.
    check::<Russian>("W:W15:B11,18,19,26,27", &mut failures);
    // The same with a king: 14x21 (taking 17) against 14x27x20x7x21.
    check::<Russian>("W:WK14:B6,16,17,23,24", &mut failures);
    // A full path that is a subsequence of another move's path: 6x15x24 (taking 10 and 19)
    // against 6x13x22x15x24, which passes 15 too.
    check::<Russian>("B:W9,10,K17,18,19:B6", &mut failures);
    assert!(
        failures.is_empty(),
        "moves that do not read back:\n{}",
        failures.join("\n")
    );
}
