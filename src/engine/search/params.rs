//! The search's settings: every switch and margin of its selectivity, and of its time and
//! threads, as plain data set by name, so that matches and tuning can compare them.

use crate::engine::time::TimePlan;

/// The move a node that fails low stores in the table (set by name as 0, 1 or 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailLowMove {
    /// 0: none; the table keeps the move an earlier search of the position found.
    Keep = 0,
    /// 1: the table move the node was searched with, the best-scoring move only when it had
    /// none.
    Searched = 1,
    /// 2: the move that scored best, although every move failed.
    Best = 2,
}

/// The switches and margins of the search's selectivity, kept as data so that they can be tuned
/// and compared in matches.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchParams {
    /// Late-move reductions: quiet moves late in the order are searched shallower first.
    pub lmr: bool,
    /// Divisor of the logarithmic reduction formula (larger reduces less), in hundredths.
    pub lmr_divisor: i32,
    /// Reverse futility pruning: at shallow non-PV nodes with no capture for either side, a static
    /// evaluation this far (per ply of depth) above beta cuts the node. 0 turns it off.
    pub futility_margin: i32,
    /// Deepest remaining depth at which reverse futility pruning applies.
    pub futility_depth: i32,
    /// Late-move pruning: at depth 1 to `late_move_depth` of non-PV nodes, quiet moves after
    /// this many (times the depth) are skipped. 0 turns it off.
    pub late_move_count: usize,
    /// The deepest remaining depth at which late-move pruning applies.
    pub late_move_depth: i32,
    /// At the horizon, a quiet position in which the opponent threatens a capture gets one more
    /// ply of search instead of a static score.
    pub threat_ply: bool,
    /// On a quiet cutoff, the quiet moves tried before the cutting one lose history; history
    /// updates saturate (gravity) instead of being halved all at once. On: +29 Elo at 3+0.03
    /// together with net 3 (README).
    pub history_malus: bool,
    /// Lazy SMP: a helper thread that finishes an iteration goes on one ply deeper than the
    /// main thread's current iteration, skipping the depths the main thread has passed.
    pub smp_ahead: bool,
    /// Lazy SMP: when a helper completed a deeper iteration than the main thread, its move is
    /// played (not in analysis, whose lines are the main thread's).
    pub smp_vote: bool,
    /// Lazy SMP: every other helper thread starts one ply deeper than the main thread (so its
    /// iterations run a depth ahead); off, all threads start at depth 1.
    pub smp_stagger: bool,
    /// Split points instead of Lazy SMP: at principal-variation nodes of at least this depth,
    /// once the first move is searched, the helper threads share the other moves with the main
    /// thread (each move searched once, by one of them); helpers do no iterations of their own
    /// (and `smp_ahead`, `smp_vote` and `smp_stagger` do nothing). 0 turns it off (Lazy SMP).
    /// At 2: 2 threads reach depth 20 in 0.55-0.58 of one thread's time against 0.68 with Lazy
    /// SMP, and play as well as Lazy SMP at equal time (README).
    pub smp_split: i32,
    /// At a threatened quiet node at the horizon (see `threat_ply`) of a non-PV line whose
    /// static score is at least this much below alpha, the static score is returned instead
    /// of searching the replies to the threat. 0 turns it off.
    pub threat_margin: i32,
    /// Futility pruning of quiet moves: at depth 1 to `move_futility_depth` of calm non-PV
    /// nodes whose static score is at least this much (per ply of depth) below alpha, only the
    /// first quiet move is searched. 0 turns it off. On (40): +15 Elo at 3+0.03 (README).
    pub move_futility: i32,
    /// The deepest node where quiet moves are pruned by `move_futility`.
    pub move_futility_depth: i32,
    /// Late-move reductions start with the move of this number in the order (from 0).
    pub lmr_min_move: usize,
    /// The shallowest depth at which late moves are reduced.
    pub lmr_depth: i32,
    /// Half-width of the first aspiration window around the previous iteration's score, in
    /// hundredths of a man.
    pub aspiration: i32,
    /// After each fail high of the root's aspiration window, the re-search goes one ply less
    /// deep, by this many plies at most (a fail low restores the depth). 0 turns it off.
    pub aspiration_reduce: i32,
    /// After a fail low of the root's aspiration window, its upper bound comes down to the
    /// middle of the window that failed.
    pub aspiration_pull: bool,
    /// When time runs out in the middle of an iteration, play the best move that iteration has
    /// proved so far (a move that beat the window's lower bound) rather than the previous
    /// iteration's.
    pub partial_root: bool,
    /// When the score of an iteration is at least this many hundredths below the previous
    /// iteration's, the soft time limit is stretched by half. 0 turns it off.
    pub time_drop: i32,
    /// Best-move effort: after an iteration, the soft time limit is scaled by
    /// `1 + time_nodes/100 · (time_nodes_center/100 − share)`, with `share` the fraction of the
    /// iteration's root nodes spent on its best move (kept within 0.5 to 2): a move that took
    /// nearly all the effort needs less time, a contested one more. 0 turns it off.
    pub time_nodes: i32,
    /// The best move's share of the root nodes (percent) at which `time_nodes` leaves the time
    /// unchanged.
    pub time_nodes_center: i32,
    /// How the clock's time is shared out among the moves.
    pub time: TimePlan,
    /// Singular extensions: at nodes of this depth or more whose table move has a lower bound
    /// from a search nearly as deep, a search of the other moves at half the depth that stays
    /// below that bound less a margin extends the table move by one ply (it alone holds the
    /// score). 0 turns it off.
    pub singular_depth: i32,
    /// The margin of the singular test, in hundredths of a man per ply of depth.
    pub singular_margin: i32,
    /// History carried between the searches of one game: each thread starts a search from the
    /// history it ended the previous one with, scaled to this percent. 0 starts each afresh.
    pub history_keep: i32,
    /// The move a node that fails low stores in the table. `Searched` against `Best`: +15.5
    /// Elo at 3+0.03 (README).
    pub fail_low_move: FailLowMove,
}

impl SearchParams {
    /// The settings the engine plays with. The margins, counts and the aspiration window were
    /// tuned by `damast tune spsa` (1,305 game pairs at 1+0.01): +18.9 Elo over the hand-set
    /// values at 3+0.03; the threat margin and the time plan by a second run (1,200 pairs);
    /// the margins, counts, aspiration window and best-move effort moved by a third (700
    /// pairs): +8.0 ± 7.8 Elo in 954 games at 3+0.03 (README).
    pub const DEFAULT: SearchParams = SearchParams {
        lmr: true,
        lmr_divisor: 188,
        futility_margin: 67,
        futility_depth: 3,
        late_move_count: 12,
        late_move_depth: 2,
        threat_ply: true,
        history_malus: true,
        smp_ahead: false,
        smp_vote: false,
        smp_stagger: true,
        smp_split: 2,
        threat_margin: 185,
        move_futility: 46,
        move_futility_depth: 2,
        lmr_min_move: 1,
        lmr_depth: 3,
        aspiration: 7,
        aspiration_reduce: 0,
        aspiration_pull: false,
        partial_root: false,
        time_drop: 0,
        time_nodes: 59,
        time_nodes_center: 75,
        time: TimePlan::DEFAULT,
        singular_depth: 8,
        singular_margin: 1,
        history_keep: 0,
        fail_low_move: FailLowMove::Searched,
    };

    /// The search as first written (mild reductions, no pruning), kept as a reference for
    /// measuring: the default with its pruning and the history malus taken out.
    pub const BASELINE: SearchParams = SearchParams {
        lmr_divisor: 0,
        futility_margin: 0,
        futility_depth: 0,
        late_move_count: 0,
        threat_ply: false,
        history_malus: false,
        move_futility: 0,
        singular_depth: 0,
        ..Self::DEFAULT
    };

    /// The first iteration of helper thread `id` (the main thread is 0): depth 2 for every
    /// other helper with [`smp_stagger`](Self::smp_stagger), else 1.
    pub fn helper_first_depth(&self, id: usize) -> i32 {
        1 + i32::from(self.smp_stagger && id % 2 == 1)
    }

    /// The names [`set`](Self::set) takes, each with its current value's text.
    pub fn values(&self) -> Vec<(&'static str, String)> {
        vec![
            ("lmr", self.lmr.to_string()),
            ("lmr-divisor", self.lmr_divisor.to_string()),
            ("futility-margin", self.futility_margin.to_string()),
            ("futility-depth", self.futility_depth.to_string()),
            ("late-move-count", self.late_move_count.to_string()),
            ("late-move-depth", self.late_move_depth.to_string()),
            ("threat-ply", self.threat_ply.to_string()),
            ("history-malus", self.history_malus.to_string()),
            ("smp-ahead", self.smp_ahead.to_string()),
            ("smp-vote", self.smp_vote.to_string()),
            ("smp-stagger", self.smp_stagger.to_string()),
            ("smp-split", self.smp_split.to_string()),
            ("threat-margin", self.threat_margin.to_string()),
            ("move-futility", self.move_futility.to_string()),
            ("move-futility-depth", self.move_futility_depth.to_string()),
            ("lmr-min-move", self.lmr_min_move.to_string()),
            ("lmr-depth", self.lmr_depth.to_string()),
            ("aspiration", self.aspiration.to_string()),
            ("aspiration-reduce", self.aspiration_reduce.to_string()),
            ("aspiration-pull", self.aspiration_pull.to_string()),
            ("partial-root", self.partial_root.to_string()),
            ("time-drop", self.time_drop.to_string()),
            ("time-nodes", self.time_nodes.to_string()),
            ("time-nodes-center", self.time_nodes_center.to_string()),
            ("time-moves", self.time.moves.to_string()),
            ("time-moves-end", self.time.moves_end.to_string()),
            ("time-soft", self.time.soft.to_string()),
            ("time-hard", self.time.hard.to_string()),
            ("time-overhead", self.time.overhead_ms.to_string()),
            ("time-ponder-credit", self.time.ponder_credit.to_string()),
            ("singular-depth", self.singular_depth.to_string()),
            ("singular-margin", self.singular_margin.to_string()),
            ("history-keep", self.history_keep.to_string()),
            ("fail-low-move", (self.fail_low_move as i32).to_string()),
        ]
    }

    /// Sets one parameter by name (as [`values`](Self::values) lists them); a bad name or
    /// value changes nothing and is described in the error.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        let int = |lo: i32, hi: i32| {
            value
                .trim()
                .parse::<i32>()
                .ok()
                .filter(|v| (lo..=hi).contains(v))
                .ok_or_else(|| format!("bad value '{value}' for {name} (expected {lo} to {hi})"))
        };
        let flag = || match value.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "on" | "yes" => Ok(true),
            "false" | "0" | "off" | "no" => Ok(false),
            _ => Err(format!(
                "bad value '{value}' for {name} (expected true or false)"
            )),
        };
        match name {
            "lmr" => self.lmr = flag()?,
            "lmr-divisor" => self.lmr_divisor = int(0, 1000)?,
            "futility-margin" => self.futility_margin = int(0, 1000)?,
            "futility-depth" => self.futility_depth = int(0, 10)?,
            "late-move-count" => self.late_move_count = int(0, 64)? as usize,
            "late-move-depth" => self.late_move_depth = int(1, 8)?,
            "threat-ply" => self.threat_ply = flag()?,
            "history-malus" => self.history_malus = flag()?,
            "smp-ahead" => self.smp_ahead = flag()?,
            "smp-vote" => self.smp_vote = flag()?,
            "smp-stagger" => self.smp_stagger = flag()?,
            "smp-split" => self.smp_split = int(0, 64)?,
            "threat-margin" => self.threat_margin = int(0, 1000)?,
            "move-futility" => self.move_futility = int(0, 1000)?,
            "move-futility-depth" => self.move_futility_depth = int(1, 8)?,
            "lmr-min-move" => self.lmr_min_move = int(1, 64)? as usize,
            "lmr-depth" => self.lmr_depth = int(2, 16)?,
            "aspiration" => self.aspiration = int(1, 1000)?,
            "aspiration-reduce" => self.aspiration_reduce = int(0, 8)?,
            "aspiration-pull" => self.aspiration_pull = flag()?,
            "partial-root" => self.partial_root = flag()?,
            "time-drop" => self.time_drop = int(0, 1000)?,
            "time-nodes" => self.time_nodes = int(0, 1000)?,
            "time-nodes-center" => self.time_nodes_center = int(0, 100)?,
            "time-moves" => self.time.moves = int(1, 50)? as u32,
            "time-moves-end" => self.time.moves_end = int(1, 50)? as u32,
            "time-soft" => self.time.soft = int(1, 1000)? as u32,
            "time-hard" => self.time.hard = int(1, 1000)? as u32,
            "time-overhead" => self.time.overhead_ms = int(0, 10_000)? as u32,
            "time-ponder-credit" => self.time.ponder_credit = int(0, 100)? as u32,
            "singular-depth" => self.singular_depth = int(0, 64)?,
            "singular-margin" => self.singular_margin = int(0, 1000)?,
            "history-keep" => self.history_keep = int(0, 100)?,
            "fail-low-move" => {
                self.fail_low_move = match int(0, 2)? {
                    0 => FailLowMove::Keep,
                    1 => FailLowMove::Searched,
                    _ => FailLowMove::Best,
                }
            }
            _ => {
                let names: Vec<&str> = self.values().iter().map(|(n, _)| *n).collect();
                return Err(format!(
                    "unknown search parameter '{name}' (expected one of: {})",
                    names.join(", ")
                ));
            }
        }
        Ok(())
    }
}

impl Default for SearchParams {
    fn default() -> Self {
        Self::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_set_by_name() {
        let mut p = SearchParams::DEFAULT;
        for (name, value) in SearchParams::BASELINE.values() {
            p.set(name, &value).unwrap();
        }
        assert_eq!(p, SearchParams::BASELINE);
        assert!(p.set("lmr-divisor", "x").is_err());
        assert!(p.set("no-such", "1").is_err());
        assert_eq!(p, SearchParams::BASELINE);
        for v in ["0", "1", "2"] {
            let mut q = SearchParams::DEFAULT;
            q.set("fail-low-move", v).unwrap();
            assert!(
                q.values().contains(&("fail-low-move", v.to_string())),
                "{v}"
            );
        }
        assert!(p.set("fail-low-move", "3").is_err());
    }
}
