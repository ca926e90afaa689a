//! Checks every case of tests/data/rule-cases.txt for the variants the engine plays
//! (every variant of [`VariantKind`]; frisian and turkish cases are skipped) against the move generator and the notation reader.
//!
//! Modes: `exact` (the multiset of short forms of the legal moves, plus the full paths of
//! `expected_full`), `contains`, `excludes`, `count`, `none`, `maxcap`, `maxcap_all`.

use std::collections::BTreeMap;
use std::str::FromStr;

use damast::core::notation::{self, MoveError};
use damast::core::{fen, movegen, Move, Variant, VariantKind};
use damast::with_variant;

const DATA: &str = include_str!("data/rule-cases.txt");

/// One block of the data file: its `key: value` lines.
#[derive(Debug, Default)]
struct Case {
    fields: BTreeMap<String, String>,
}

impl Case {
    fn get(&self, key: &str) -> Option<&str> {
        self.fields.get(key).map(String::as_str)
    }

    fn name(&self) -> &str {
        self.get("case").unwrap_or("<unnamed>")
    }
}

fn parse_cases(text: &str) -> Vec<Case> {
    let mut cases = Vec::new();
    let mut cur = Case::default();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        if line.is_empty() {
            if !cur.fields.is_empty() {
                cases.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if let Some((k, v)) = line.split_once(':') {
            cur.fields
                .insert(k.trim().to_string(), v.trim().to_string());
        }
    }
    if !cur.fields.is_empty() {
        cases.push(cur);
    }
    cases
}

/// The moves listed in `expected` (the word `(none)` stands for no move).
fn expected_tokens(case: &Case) -> Vec<String> {
    case.get("expected")
        .unwrap_or("")
        .split_whitespace()
        .filter(|t| *t != "(none)")
        .map(str::to_string)
        .collect()
}

fn expected_count(case: &Case) -> Result<usize, String> {
    let t = case
        .get("expected_count")
        .ok_or("no expected_count field")?;
    t.parse().map_err(|_| format!("bad expected_count '{t}'"))
}

/// The short form with `x` for every capture separator (russian texts may use `:`).
fn normalize(token: &str) -> String {
    token.replace(':', "x")
}

fn short_forms<V: Variant>(moves: &[Move<V>]) -> Vec<String> {
    let mut v: Vec<String> = moves.iter().map(notation::short).collect();
    v.sort();
    v
}

/// Whether a token's squares are written as a capture.
fn is_capture_text(token: &str) -> bool {
    token.contains(['x', 'X', ':'])
}

/// The first and last square numbers of a move text.
fn ends<V: Variant>(token: &str) -> Option<(u32, u32)> {
    let parts: Vec<&str> = token.split(['x', 'X', ':', '-']).collect();
    let a = notation::parse_square::<V>(parts.first()?)?;
    let b = notation::parse_square::<V>(parts.last()?)?;
    Some((a.number(), b.number()))
}

fn check<V: Variant>(case: &Case) -> Result<(), String> {
    let fen_text = case.get("fen").ok_or("no fen field")?;
    let pos = fen::parse::<V>(fen_text).map_err(|e| format!("FEN {fen_text}: {e}"))?;
    if let Some(alg) = case.get("fen_algebraic") {
        let p2 = fen::parse::<V>(alg).map_err(|e| format!("fen_algebraic {alg}: {e}"))?;
        if p2 != pos {
            return Err(format!(
                "fen_algebraic {alg} reads as {} but fen {fen_text} as {}",
                fen::write(&p2),
                fen::write(&pos)
            ));
        }
    }
    let legal: Vec<Move<V>> = movegen::legal_moves(&pos).iter().copied().collect();
    let mut errors: Vec<String> = Vec::new();
    let counted = movegen::count(&pos);
    if counted != legal.len() as u64 {
        errors.push(format!(
            "movegen::count = {counted} but legal_moves has {} moves",
            legal.len()
        ));
    }
    let actual = short_forms(&legal);
    let mode = case
        .get("mode")
        .and_then(|m| m.split_whitespace().next())
        .ok_or("no mode field")?;
    match mode {
        "exact" => {
            let mut expected: Vec<String> = expected_tokens(case)
                .iter()
                .map(String::as_str)
                .map(normalize)
                .collect();
            expected.sort();
            if expected != actual {
                errors.push(format!("legal moves {actual:?}, expected {expected:?}"));
            }
            if let Some(full) = case.get("expected_full") {
                let mut distinct: Vec<Move<V>> = Vec::new();
                for path in full.split_whitespace() {
                    match notation::parse(&pos, path) {
                        Ok(m) => {
                            if ends::<V>(path) != Some((m.from().number(), m.to().number())) {
                                errors.push(format!(
                                    "full path {path} read as {} (other start or end)",
                                    notation::hub(&m)
                                ));
                            }
                            if !distinct.contains(&m) {
                                distinct.push(m);
                            }
                        }
                        Err(e) => errors.push(format!("full path {path}: {e}")),
                    }
                }
                if distinct.len() != expected.len() {
                    errors.push(format!(
                        "the full paths name {} distinct moves ({:?}), expected {}",
                        distinct.len(),
                        distinct.iter().map(notation::hub).collect::<Vec<_>>(),
                        expected.len()
                    ));
                }
            }
        }
        "contains" => {
            for token in expected_tokens(case) {
                match notation::parse(&pos, &token) {
                    Ok(m) => {
                        if m.is_capture() != is_capture_text(&token) {
                            errors.push(format!(
                                "{token} read as {} (capture and quiet mixed up)",
                                notation::hub(&m)
                            ));
                        }
                    }
                    Err(MoveError::Ambiguous { .. })
                        if token.split(['x', ':', '-']).count() == 2 =>
                    {
                        let (f, t) =
                            ends::<V>(&token).ok_or_else(|| format!("bad token {token}"))?;
                        if !legal
                            .iter()
                            .any(|m| m.from().number() == f && m.to().number() == t)
                        {
                            errors.push(format!("{token} ambiguous but no legal move has it"));
                        }
                    }
                    Err(e) => errors.push(format!("{token}: {e}; legal moves {actual:?}")),
                }
            }
        }
        "excludes" => {
            for token in expected_tokens(case) {
                match notation::parse(&pos, &token) {
                    Ok(m) => errors.push(format!(
                        "{token} must not be legal but reads as {}",
                        notation::hub(&m)
                    )),
                    Err(MoveError::Ambiguous { .. }) => {
                        errors.push(format!("{token} must not be legal; legal moves {actual:?}"))
                    }
                    Err(_) => {}
                }
            }
        }
        "count" => {
            let n = expected_count(case)?;
            if legal.len() != n {
                errors.push(format!(
                    "{} legal moves {actual:?}, expected {n}",
                    legal.len()
                ));
            }
        }
        "none" => {
            if !legal.is_empty() {
                errors.push(format!("expected no legal move, found {actual:?}"));
            }
        }
        "maxcap" => {
            let n = expected_count(case)? as u32;
            let best = legal.iter().map(|m| m.capture_count()).max().unwrap_or(0);
            if best != n {
                errors.push(format!(
                    "longest capture takes {best}, expected {n}; legal moves {actual:?}"
                ));
            }
        }
        "maxcap_all" => {
            let n = expected_count(case)? as u32;
            if legal.is_empty() || legal.iter().any(|m| m.capture_count() != n) {
                let hubs: Vec<String> = legal.iter().map(notation::hub).collect();
                errors.push(format!(
                    "expected every move to capture {n}; legal moves {hubs:?}"
                ));
            }
        }
        other => errors.push(format!("unknown mode '{other}'")),
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("FEN {fen_text}: {}", errors.join("; ")))
    }
}

#[test]
fn every_rule_case_of_the_supported_variants() {
    let cases = parse_cases(DATA);
    assert!(
        cases.len() >= 40,
        "only {} blocks read from rule-cases.txt",
        cases.len()
    );
    let mut supported_blocks = 0;
    let mut checked = 0;
    let mut skipped = 0;
    let mut failures: Vec<String> = Vec::new();
    for case in &cases {
        let variant = case.get("variant").unwrap_or("");
        let kind = match VariantKind::from_str(variant) {
            Ok(kind) => {
                supported_blocks += 1;
                kind
            }
            Err(_) => {
                skipped += 1;
                continue;
            }
        };
        checked += 1;
        if let Err(e) = with_variant!(kind, V => check::<V>(case)) {
            failures.push(format!("{} [{variant}]: {e}", case.name()));
        }
    }
    eprintln!(
        "rule cases: {} blocks, {checked} checked, {skipped} skipped (other variants), {} failed",
        cases.len(),
        failures.len()
    );
    assert!(
        checked >= supported_blocks && checked > 0,
        "checked {checked} cases but the file has {supported_blocks} of the supported variants"
    );
    assert!(
        failures.is_empty(),
        "{} of {checked} rule cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
