//! The tally of a match or round robin: wins, draws and losses of every pair, points of every
//! engine, and the text of the running score and the final report.

use crate::core::Color;

use super::game_runner::TimeUse;
use super::stats::{self, Sprt, SprtDecision, Wdl};

/// Results of every pair of engines.
#[derive(Clone, Debug)]
pub struct Standings {
    names: Vec<String>,
    /// `pairs[a][b]`: results of engine `a` against engine `b`, from `a`'s side.
    pairs: Vec<Vec<Wdl>>,
    /// Games won by white, drawn, won by black.
    by_colour: Wdl,
    /// How each engine spent its clock over all its games.
    time: Vec<TimeUse>,
}

impl Standings {
    /// Empty standings for the named engines.
    pub fn new(names: Vec<String>) -> Standings {
        let n = names.len();
        Standings {
            names,
            pairs: vec![vec![Wdl::default(); n]; n],
            by_colour: Wdl::default(),
            time: vec![TimeUse::default(); n],
        }
    }

    /// Records a game between engines `white` and `black`; `winner` is `None` for a draw.
    pub fn record(&mut self, white: usize, black: usize, winner: Option<Color>) {
        let (w, b) = (&mut self.pairs, (white, black));
        match winner {
            Some(Color::White) => {
                w[b.0][b.1].wins += 1;
                w[b.1][b.0].losses += 1;
                self.by_colour.wins += 1;
            }
            Some(Color::Black) => {
                w[b.0][b.1].losses += 1;
                w[b.1][b.0].wins += 1;
                self.by_colour.losses += 1;
            }
            None => {
                w[b.0][b.1].draws += 1;
                w[b.1][b.0].draws += 1;
                self.by_colour.draws += 1;
            }
        }
    }

    /// Adds a game's time use of engine `i`.
    pub fn record_time(&mut self, i: usize, time: &TimeUse) {
        self.time[i].add(time);
    }

    /// How engine `i` spent its clock over the games recorded.
    pub fn time(&self, i: usize) -> TimeUse {
        self.time[i]
    }

    /// The engines' names.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Results of engine `a` against engine `b`, from `a`'s side.
    pub fn pair(&self, a: usize, b: usize) -> Wdl {
        self.pairs[a][b]
    }

    /// Results of engine `a` against all the others together.
    pub fn total(&self, a: usize) -> Wdl {
        self.pairs[a].iter().fold(Wdl::default(), |t, w| {
            Wdl::new(t.wins + w.wins, t.draws + w.draws, t.losses + w.losses)
        })
    }

    /// Games played.
    pub fn games(&self) -> u32 {
        self.by_colour.games()
    }

    /// The running score in a few words, for the progress bar.
    pub fn short(&self) -> String {
        if self.names.len() == 2 {
            let w = self.pair(0, 1);
            let elo = stats::elo(&w).map_or(String::new(), |e| {
                if e.elo.is_finite() {
                    format!(" Elo {:+.0}", e.elo)
                } else {
                    String::new()
                }
            });
            format!(
                "{} {} - {} {} (+{} ={} -{}){elo}",
                self.names[0],
                fmt_points(w.points()),
                fmt_points(w.flipped().points()),
                self.names[1],
                w.wins,
                w.draws,
                w.losses
            )
        } else {
            let leader = (0..self.names.len())
                .max_by(|&a, &b| self.total(a).points().total_cmp(&self.total(b).points()))
                .unwrap_or(0);
            format!(
                "leader {} {}/{}",
                self.names[leader],
                fmt_points(self.total(leader).points()),
                self.total(leader).games()
            )
        }
    }

    /// The final report: results, score and Elo with its interval (per pair and a table for a
    /// round robin), and the SPRT's state when one runs.
    pub fn report(&self, sprt: Option<&Sprt>) -> Vec<String> {
        let mut lines = Vec::new();
        let n = self.names.len();
        if n > 2 {
            lines.push(format!(
                "{:<4} {:<20} {:>8} {:>6} {:>7}  {:>6} {:>6} {:>6}",
                "rank", "engine", "points", "games", "score", "wins", "draws", "losses"
            ));
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&a, &b| self.total(b).points().total_cmp(&self.total(a).points()));
            for (rank, &i) in order.iter().enumerate() {
                let t = self.total(i);
                lines.push(format!(
                    "{:<4} {:<20} {:>8} {:>6} {:>6.1}%  {:>6} {:>6} {:>6}",
                    rank + 1,
                    self.names[i],
                    fmt_points(t.points()),
                    t.games(),
                    100.0 * t.score().unwrap_or(0.0),
                    t.wins,
                    t.draws,
                    t.losses
                ));
            }
        }
        for a in 0..n {
            for b in a + 1..n {
                lines.extend(self.pair_report(a, b));
            }
        }
        let c = self.by_colour;
        lines.push(format!(
            "By colour: white won {}, drew {}, black won {}",
            c.wins, c.draws, c.losses
        ));
        for (name, t) in self.names.iter().zip(&self.time) {
            lines.extend(time_line(name, t));
        }
        if let (Some(s), 2) = (sprt, n) {
            lines.push(sprt_line(s, &self.pair(0, 1)));
        }
        lines
    }

    fn pair_report(&self, a: usize, b: usize) -> Vec<String> {
        let w = self.pair(a, b);
        let mut lines = vec![format!(
            "{} vs {}: {} games, +{} ={} -{} (wins, draws, losses of {}), score {} ({:.1}%)",
            self.names[a],
            self.names[b],
            w.games(),
            w.wins,
            w.draws,
            w.losses,
            self.names[a],
            fmt_points(w.points()),
            100.0 * w.score().unwrap_or(0.0)
        )];
        if let Some(e) = stats::elo(&w) {
            lines.push(format!(
                "  Elo difference: {e}, LOS {:.1}%",
                100.0 * stats::los(&w)
            ));
        }
        lines
    }
}

/// An engine's time use in one line: mean seconds a move and, when it pondered, how often the
/// opponent played the move it pondered on. `None` when it made no move.
fn time_line(name: &str, t: &TimeUse) -> Option<String> {
    let per_move = t.per_move()?;
    let mut line = format!("Time: {name} {per_move:.3} s a move ({} moves)", t.moves);
    if let Some(rate) = t.hit_rate() {
        line.push_str(&format!(
            ", ponder hits {} of {} ({:.1}%)",
            t.ponder_hits,
            t.ponder_searches(),
            100.0 * rate
        ));
    }
    Some(line)
}

fn fmt_points(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("{p:.0}")
    } else {
        format!("{p:.1}")
    }
}

/// The SPRT's state in one line.
pub fn sprt_line(sprt: &Sprt, wdl: &Wdl) -> String {
    let llr = sprt.llr(wdl);
    let (low, high) = sprt.bounds();
    let state = match sprt.decide(llr) {
        SprtDecision::H0 => "H0 accepted",
        SprtDecision::H1 => "H1 accepted",
        SprtDecision::Continue => "no decision yet",
    };
    format!(
        "SPRT elo0={} elo1={} alpha={} beta={} ({:?}): LLR {llr:.2} (bounds {low:.2} to {high:.2}): {state}",
        sprt.elo0, sprt.elo1, sprt.alpha, sprt.beta, sprt.model
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tallies_pairs_and_totals() {
        let mut s = Standings::new(vec!["A".into(), "B".into(), "C".into()]);
        s.record(0, 1, Some(Color::White));
        s.record(1, 0, Some(Color::White));
        s.record(0, 2, None);
        s.record(2, 1, Some(Color::Black));
        assert_eq!(s.pair(0, 1), Wdl::new(1, 0, 1));
        assert_eq!(s.pair(1, 0), Wdl::new(1, 0, 1));
        assert_eq!(s.total(1), Wdl::new(2, 0, 1));
        assert_eq!(s.total(2), Wdl::new(0, 1, 1));
        assert_eq!(s.games(), 4);
        let report = s.report(None).join("\n");
        assert!(report.contains("rank"), "{report}");
        assert!(report.contains("B vs C: 1 games, +1 =0 -0"), "{report}");
        assert!(
            report.contains("white won 2, drew 1, black won 1"),
            "{report}"
        );
        assert!(s.short().starts_with("leader B 2/3"), "{}", s.short());
    }

    #[test]
    fn two_engine_report_has_elo_and_sprt() {
        let mut s = Standings::new(vec!["new".into(), "old".into()]);
        for _ in 0..6 {
            s.record(0, 1, Some(Color::White));
        }
        for _ in 0..2 {
            s.record(1, 0, None);
        }
        for _ in 0..2 {
            s.record(1, 0, Some(Color::White));
        }
        // new: 6 wins, 2 draws, 2 losses = 0.7
        assert_eq!(s.pair(0, 1), Wdl::new(6, 2, 2));
        assert_eq!(s.short(), "new 7 - 3 old (+6 =2 -2) Elo +147");
        let sprt = Sprt {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: stats::EloModel::Logistic,
        };
        let report = s.report(Some(&sprt)).join("\n");
        assert!(report.contains("score 7 (70.0%)"), "{report}");
        assert!(report.contains("Elo difference: +147.2 +/- "), "{report}");
        assert!(report.contains("SPRT elo0=0 elo1=5"), "{report}");
    }

    #[test]
    fn time_use_is_summed_per_engine_and_reported() {
        let mut s = Standings::new(vec!["ponderer".into(), "plain".into(), "idle".into()]);
        let game = |moves, seconds, hits, misses| TimeUse {
            moves,
            seconds,
            ponder_hits: hits,
            ponder_misses: misses,
        };
        s.record_time(0, &game(40, 3.0, 25, 10));
        s.record_time(0, &game(10, 1.0, 5, 0));
        s.record_time(1, &game(50, 5.0, 0, 0));
        assert_eq!(s.time(0), game(50, 4.0, 30, 10));
        assert_eq!(s.time(0).hit_rate(), Some(0.75));
        assert_eq!(s.time(1).hit_rate(), None);
        let report = s.report(None);
        let times: Vec<&str> = report
            .iter()
            .filter(|l| l.starts_with("Time:"))
            .map(|l| l.as_str())
            .collect();
        // an engine that never moved has no time line
        assert_eq!(
            times,
            [
                "Time: ponderer 0.080 s a move (50 moves), ponder hits 30 of 40 (75.0%)",
                "Time: plain 0.100 s a move (50 moves)"
            ]
        );
    }
}
