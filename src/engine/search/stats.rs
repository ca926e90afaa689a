//! The counters of where a search's nodes go (`damast bench --stats`).

/// Declares [`SearchStats`] with its counters once, and their sum and difference field by field.
macro_rules! search_stats {
    ($($(#[$doc:meta])* $field:ident,)*) => {
        /// Where a search's nodes go: counters kept by every worker (plain additions, so always
        /// on).
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct SearchStats {
            $($(#[$doc])* pub $field: u64,)*
        }

        impl std::ops::AddAssign for SearchStats {
            fn add_assign(&mut self, o: SearchStats) {
                $(self.$field += o.$field;)*
            }
        }

        impl std::ops::Sub for SearchStats {
            type Output = SearchStats;
            fn sub(self, o: SearchStats) -> SearchStats {
                SearchStats {
                    $($field: self.$field - o.$field,)*
                }
            }
        }
    };
}

search_stats! {
    /// Nodes entered.
    nodes,
    /// Nodes the endgame database ended (an exact draw, or a bound outside the window).
    egdb_cuts,
    /// Nodes entered at depth 0 or below (the capture extension that acts as quiescence).
    qnodes,
    /// Transposition-table probes.
    tt_probes,
    /// Probes that found the position.
    tt_hits,
    /// Probes whose entry ended the node at once.
    tt_cutoffs,
    /// Nodes ended by a beta cutoff after searching moves.
    cutoffs,
    /// Of those, the ones where the first move tried caused it.
    first_move_cutoffs,
    /// Reduced (late-move) searches.
    reduced,
    /// Reduced searches that failed high and were searched again at full depth.
    reduced_researches,
    /// Null-window searches at PV nodes searched again with the full window.
    pv_researches,
    /// Nodes ended by reverse futility pruning.
    futility_prunes,
    /// Quiet moves skipped by futility pruning.
    futility_move_prunes,
    /// Threatened horizon nodes left unsearched because they were far below alpha.
    threat_prunes,
    /// Quiet moves skipped by late-move pruning.
    late_move_prunes,
    /// Singular tests (searches of a node without its table move).
    singular_tests,
    /// Of those, the ones that extended the table move.
    singular_extensions,
}
