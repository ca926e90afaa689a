//! The search's settings: every switch and margin of its selectivity, and of its time and
//! threads, as plain data set by name, so that matches and tuning can compare them.

use super::HISTORY_MAX;
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
    /// Razoring: a calm non-PV node of depth 1 or 2 whose static score is at least this far
    /// (per ply of depth) below alpha, and in which no man can promote, returns that score
    /// without searching a move. 0 turns it off.
    pub razor_margin: i32,
    /// Late-move pruning: at depth 1 to `late_move_depth` of non-PV nodes, quiet moves after
    /// this many (times the depth) are skipped. 0 turns it off.
    pub late_move_count: usize,
    /// The deepest remaining depth at which late-move pruning applies.
    pub late_move_depth: i32,
    /// At the horizon, a quiet position in which the opponent threatens a capture gets one more
    /// ply of search instead of a static score.
    pub threat_ply: bool,
    /// Internal iterative reduction: a node of this depth or more with no table move is searched
    /// one ply shallower (its move order is a guess anyway). 0 turns it off.
    pub iir_depth: i32,
    /// On a quiet cutoff, the quiet moves tried before the cutting one lose history; history
    /// updates saturate (gravity) instead of being halved all at once. On: +29 Elo at 3+0.03
    /// together with net 3 (README).
    pub history_malus: bool,
    /// Late-move reductions shrink for quiet moves with a good history and grow for a bad one,
    /// by history / this, two plies at most either way. 0 turns it off.
    pub lmr_history: i32,
    /// ProbCut: at non-PV nodes of depth `probcut_depth` or more, a null-window search 4 plies
    /// shallower that scores at least this far above beta cuts the node. 0 turns it off.
    pub probcut_margin: i32,
    /// Shallowest remaining depth at which ProbCut is tried.
    pub probcut_depth: i32,
    /// Null move: at calm non-PV nodes of this depth or more whose static score is at least
    /// beta, the side to move passes and a search `null_reduction` + depth/4 plies shallower
    /// that still reaches beta cuts the node. Not after another pass, and only while the side
    /// to move has `null_pieces` pieces or more (tempo and zugzwang rule the endgame). 0 turns
    /// it off.
    pub null_depth: i32,
    /// The null move's reduction, besides a ply in four of the depth.
    pub null_reduction: i32,
    /// The fewest pieces of the side to move with which it may pass.
    pub null_pieces: u32,
    /// A table entry of this search more than this many plies deeper than a new one for the
    /// same position, which is not exact, keeps its score and depth (taking the new move).
    /// 0 turns it off (the new entry replaces it).
    pub tt_keep: i32,
    /// Enhanced transposition cutoffs: at non-PV nodes of this depth or more, a child whose
    /// table entry, searched deep enough, proves the move reaches beta cuts the node before
    /// any move is searched. 0 turns it off.
    pub etc_depth: i32,
    /// Counter moves: the quiet move that last refuted the opponent's previous move is tried
    /// right after the killers.
    pub counter_move: bool,
    /// Lazy SMP: a helper thread that finishes an iteration goes on one ply deeper than the
    /// main thread's current iteration, skipping the depths the main thread has passed.
    pub smp_ahead: bool,
    /// Lazy SMP: when a helper completed a deeper iteration than the main thread, its move is
    /// played (not in analysis, whose lines are the main thread's).
    pub smp_vote: bool,
    /// Lazy SMP: helper threads make singular tests and extensions too. Off, a helper searches
    /// a lighter tree than the main thread's and fills the table ahead of it.
    pub smp_helper_singular: bool,
    /// Lazy SMP: every other helper thread starts one ply deeper than the main thread (so its
    /// iterations run a depth ahead); off, all threads start at depth 1.
    pub smp_stagger: bool,
    /// A quiet man move onto the row before promotion is searched one ply deeper (the
    /// promotion it threatens is then inside the tree).
    pub promo_ext: bool,
    /// At the horizon, a quiet position in which the side to move can promote gets one more
    /// ply of search instead of a static score.
    pub promo_ply: bool,
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
    /// Lazy SMP with deferral: at nodes of this depth or more, a move (other than the first)
    /// that another thread is searching is put off until the node's other moves are done.
    /// 0 turns it off; it only acts with several threads.
    pub smp_defer_depth: i32,
    /// Singular extensions: at nodes of this depth or more whose table move has a lower bound
    /// from a search nearly as deep, a search of the other moves at half the depth that stays
    /// below that bound less a margin extends the table move by one ply (it alone holds the
    /// score). 0 turns it off.
    pub singular_depth: i32,
    /// The margin of the singular test, in hundredths of a man per ply of depth.
    pub singular_margin: i32,
    /// Double singular extensions: at a non-PV node whose other moves fall short of the
    /// singular bound by this many hundredths more, the table move gets two plies (a few times
    /// a line at most). 0 turns it off.
    pub singular_double: i32,
    /// Negative singular extensions: when the singular test fails but the table move's bound
    /// is at least beta, the table move is searched one ply shallower (other moves hold the
    /// node too).
    pub singular_negative: bool,
    /// Late-move reductions grow by this many plies at expected cut nodes (the zero-window
    /// children of a later move, and every other generation below them). 0 turns it off.
    pub lmr_cut: i32,
    /// Futility pruning takes the table's score in place of the static score when its bound
    /// says it is more exact (a lower bound above it, an upper bound below it).
    pub futility_tt: bool,
    /// "Improving": a calm node whose static score is above the same side's two plies up (or
    /// four, when that node was not calm) has its reverse-futility margin cut by a ply, and
    /// at a non-PV node that is not improving late moves are reduced one ply more.
    pub improving: bool,
    /// Late-move reductions of a killer move are this many plies smaller. 0 turns it off.
    pub lmr_killer: i32,
    /// History pruning: at a non-PV node of depth 1 to 3, a quiet move (not the first) whose
    /// history is below minus this times the depth is skipped. 0 turns it off.
    pub history_prune: i32,
    /// History carried between the searches of one game: each thread starts a search from the
    /// history it ended the previous one with, scaled to this percent. 0 starts each afresh.
    pub history_keep: i32,
    /// Late-move reductions of a quiet move after which the opponent must capture (an offer
    /// or exchange, the stuff of combinations) are this many plies smaller (larger when
    /// negative). 0 turns it off.
    pub lmr_forcing: i32,
    /// At a node where the opponent threatens a capture, late-move reductions of a quiet move
    /// that parries it (after which the opponent has no capture) are this many plies smaller.
    /// 0 turns it off.
    pub lmr_parry: i32,
    /// The threat ply of `threat_ply` is also given below the horizon (at the quiet ends of
    /// the capture search), once a line.
    pub threat_deep: bool,
    /// A singular test's result is kept in the table under the node's key mixed with the
    /// excluded move, so that a later visit (a re-search, or another thread) need not repeat it.
    pub singular_key: bool,
    /// Quiet moves at nodes of `order_eval_depth` or more are ordered by history plus this
    /// many history points per hundredth of the static score after the move (a move that
    /// offers the opponent a capture keeps the score before it). 0 turns it off.
    pub order_eval: i32,
    /// Shallowest remaining depth at which `order_eval` orders quiet moves.
    pub order_eval_depth: i32,
    /// Correction history: static scores are corrected by what searches of positions with the
    /// same men of one colour found they missed (two tables per side to move, one keyed by
    /// each colour's men), by this percent of the learned error. 0 turns it off.
    pub correction: i32,
    /// The correction history also corrects the static scores of the leaves (not only those
    /// that decide pruning).
    pub correction_leaves: bool,
    /// The move a node that fails low stores in the table. `Searched` against `Best`: +15.5
    /// Elo at 3+0.03 (README).
    pub fail_low_move: FailLowMove,
    /// Late-move reductions at a non-PV node whose position was once searched as a PV node
    /// (the table remembers it) are this many plies smaller. 0 turns it off.
    pub lmr_tt_pv: i32,
    /// After a reduced move beats alpha, its full-depth re-search goes one ply deeper when
    /// its score cleared the best by this many hundredths, one ply shallower (not at all when
    /// that is the reduced depth) when it did not clear it by an eighth of that. 0 turns it off.
    pub lmr_deeper: i32,
    /// Late-move reductions of captures: at a non-PV node of depth 3 or more where a capture
    /// is forced and there are several, the captures after the first two are searched this
    /// many plies shallower (re-searched at full depth if they beat alpha). 0 turns it off.
    pub lmr_capture: i32,
    /// Capture history: at a node with several captures to choose from, they are ordered by
    /// how often each (by side, from and to) caused a cutoff before, learned as the quiet
    /// moves' history is; off, by their size and promotion only.
    pub capture_history: bool,
    /// Captures that take more kings are tried first among those of the same size.
    pub capture_kings: bool,
    /// Offers are kept from shallow pruning: at nodes of this depth or less where quiet-move
    /// futility or late-move pruning skips the remaining quiet moves, those after which the
    /// opponent must capture (an offer, the first move of a shot) are still searched. 0 turns
    /// it off.
    pub keep_offers: i32,
    /// After each iteration the root moves after the best are ordered by the nodes their
    /// searches took (most first: the moves that came closest to the best); off, they keep
    /// their order and only the best moves to the front.
    pub root_order: bool,
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
        razor_margin: 0,
        late_move_count: 12,
        late_move_depth: 2,
        threat_ply: true,
        iir_depth: 0,
        history_malus: true,
        lmr_history: 0,
        probcut_margin: 0,
        probcut_depth: 5,
        null_depth: 0,
        null_reduction: 3,
        null_pieces: 8,
        tt_keep: 0,
        etc_depth: 0,
        counter_move: false,
        smp_ahead: false,
        smp_vote: false,
        smp_helper_singular: true,
        smp_stagger: true,
        promo_ext: false,
        promo_ply: false,
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
        smp_defer_depth: 0,
        singular_depth: 8,
        singular_margin: 1,
        singular_double: 0,
        singular_negative: false,
        lmr_cut: 0,
        futility_tt: false,
        improving: false,
        lmr_killer: 0,
        history_prune: 0,
        history_keep: 0,
        lmr_forcing: 0,
        lmr_parry: 0,
        threat_deep: false,
        singular_key: false,
        order_eval: 0,
        order_eval_depth: 4,
        correction: 0,
        correction_leaves: true,
        fail_low_move: FailLowMove::Searched,
        lmr_tt_pv: 0,
        lmr_deeper: 0,
        lmr_capture: 0,
        capture_history: false,
        capture_kings: false,
        keep_offers: 0,
        root_order: false,
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
            ("razor-margin", self.razor_margin.to_string()),
            ("late-move-count", self.late_move_count.to_string()),
            ("late-move-depth", self.late_move_depth.to_string()),
            ("threat-ply", self.threat_ply.to_string()),
            ("iir-depth", self.iir_depth.to_string()),
            ("history-malus", self.history_malus.to_string()),
            ("lmr-history", self.lmr_history.to_string()),
            ("probcut-margin", self.probcut_margin.to_string()),
            ("probcut-depth", self.probcut_depth.to_string()),
            ("null-depth", self.null_depth.to_string()),
            ("null-reduction", self.null_reduction.to_string()),
            ("null-pieces", self.null_pieces.to_string()),
            ("tt-keep", self.tt_keep.to_string()),
            ("etc-depth", self.etc_depth.to_string()),
            ("counter-move", self.counter_move.to_string()),
            ("smp-ahead", self.smp_ahead.to_string()),
            ("smp-vote", self.smp_vote.to_string()),
            ("smp-helper-singular", self.smp_helper_singular.to_string()),
            ("smp-stagger", self.smp_stagger.to_string()),
            ("promo-ext", self.promo_ext.to_string()),
            ("promo-ply", self.promo_ply.to_string()),
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
            ("smp-defer-depth", self.smp_defer_depth.to_string()),
            ("singular-depth", self.singular_depth.to_string()),
            ("singular-margin", self.singular_margin.to_string()),
            ("singular-double", self.singular_double.to_string()),
            ("singular-negative", self.singular_negative.to_string()),
            ("lmr-cut", self.lmr_cut.to_string()),
            ("futility-tt", self.futility_tt.to_string()),
            ("improving", self.improving.to_string()),
            ("lmr-killer", self.lmr_killer.to_string()),
            ("history-prune", self.history_prune.to_string()),
            ("history-keep", self.history_keep.to_string()),
            ("lmr-forcing", self.lmr_forcing.to_string()),
            ("lmr-parry", self.lmr_parry.to_string()),
            ("threat-deep", self.threat_deep.to_string()),
            ("singular-key", self.singular_key.to_string()),
            ("order-eval", self.order_eval.to_string()),
            ("order-eval-depth", self.order_eval_depth.to_string()),
            ("correction", self.correction.to_string()),
            ("correction-leaves", self.correction_leaves.to_string()),
            ("fail-low-move", (self.fail_low_move as i32).to_string()),
            ("lmr-tt-pv", self.lmr_tt_pv.to_string()),
            ("lmr-deeper", self.lmr_deeper.to_string()),
            ("lmr-capture", self.lmr_capture.to_string()),
            ("capture-history", self.capture_history.to_string()),
            ("capture-kings", self.capture_kings.to_string()),
            ("keep-offers", self.keep_offers.to_string()),
            ("root-order", self.root_order.to_string()),
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
            "razor-margin" => self.razor_margin = int(0, 1000)?,
            "late-move-count" => self.late_move_count = int(0, 64)? as usize,
            "late-move-depth" => self.late_move_depth = int(1, 8)?,
            "threat-ply" => self.threat_ply = flag()?,
            "iir-depth" => self.iir_depth = int(0, 64)?,
            "history-malus" => self.history_malus = flag()?,
            "lmr-history" => self.lmr_history = int(0, 1 << 16)?,
            "probcut-margin" => self.probcut_margin = int(0, 1000)?,
            "probcut-depth" => self.probcut_depth = int(2, 64)?,
            "null-depth" => self.null_depth = int(0, 64)?,
            "null-reduction" => self.null_reduction = int(1, 16)?,
            "null-pieces" => self.null_pieces = int(0, 40)? as u32,
            "tt-keep" => self.tt_keep = int(0, 64)?,
            "etc-depth" => self.etc_depth = int(0, 64)?,
            "counter-move" => self.counter_move = flag()?,
            "smp-ahead" => self.smp_ahead = flag()?,
            "smp-vote" => self.smp_vote = flag()?,
            "smp-helper-singular" => self.smp_helper_singular = flag()?,
            "smp-stagger" => self.smp_stagger = flag()?,
            "promo-ext" => self.promo_ext = flag()?,
            "promo-ply" => self.promo_ply = flag()?,
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
            "smp-defer-depth" => self.smp_defer_depth = int(0, 64)?,
            "singular-depth" => self.singular_depth = int(0, 64)?,
            "singular-margin" => self.singular_margin = int(0, 1000)?,
            "singular-double" => self.singular_double = int(0, 1000)?,
            "singular-negative" => self.singular_negative = flag()?,
            "lmr-cut" => self.lmr_cut = int(0, 8)?,
            "futility-tt" => self.futility_tt = flag()?,
            "improving" => self.improving = flag()?,
            "lmr-killer" => self.lmr_killer = int(0, 4)?,
            "history-prune" => self.history_prune = int(0, HISTORY_MAX)?,
            "history-keep" => self.history_keep = int(0, 100)?,
            "lmr-forcing" => self.lmr_forcing = int(-4, 4)?,
            "lmr-parry" => self.lmr_parry = int(0, 4)?,
            "lmr-tt-pv" => self.lmr_tt_pv = int(0, 4)?,
            "lmr-deeper" => self.lmr_deeper = int(0, 1000)?,
            "lmr-capture" => self.lmr_capture = int(0, 4)?,
            "capture-history" => self.capture_history = flag()?,
            "capture-kings" => self.capture_kings = flag()?,
            "keep-offers" => self.keep_offers = int(0, 8)?,
            "root-order" => self.root_order = flag()?,
            "threat-deep" => self.threat_deep = flag()?,
            "singular-key" => self.singular_key = flag()?,
            "order-eval" => self.order_eval = int(0, 10_000)?,
            "order-eval-depth" => self.order_eval_depth = int(1, 64)?,
            "correction" => self.correction = int(0, 200)?,
            "correction-leaves" => self.correction_leaves = flag()?,
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
