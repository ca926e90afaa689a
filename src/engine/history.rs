//! Move-ordering history carried from one search of a game to the next: the table each search
//! thread ended with, tagged with its variant, seeds the same thread's table in the next search,
//! scaled down so that old evidence counts for less than new.

use crate::core::variant::{Variant, VariantKind};

/// The history tables the threads of the last search ended with.
#[derive(Debug, Default)]
pub struct KeptHistory {
    kind: Option<VariantKind>,
    tables: Vec<Vec<i32>>,
}

impl KeptHistory {
    /// Forgets every table (a new game).
    pub fn clear(&mut self) {
        self.kind = None;
        self.tables.clear();
    }

    /// Thread `id`'s table for a search in `V`, every score scaled to `percent`; `None` when
    /// there is nothing to carry over (no table, another variant's, or `percent` 0).
    pub fn take<V: Variant>(&mut self, id: usize, percent: i32) -> Option<Vec<i32>> {
        if percent <= 0 || self.kind != Some(V::KIND) {
            return None;
        }
        let mut table = std::mem::take(self.tables.get_mut(id)?);
        if table.is_empty() {
            return None;
        }
        if percent < 100 {
            for h in &mut table {
                *h = *h * percent / 100;
            }
        }
        Some(table)
    }

    /// Keeps the tables a search in `V` ended with, thread `i`'s at `i`.
    pub fn keep<V: Variant>(&mut self, tables: Vec<Vec<i32>>) {
        self.kind = Some(V::KIND);
        self.tables = tables;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::variant::{International, Russian};

    #[test]
    fn tables_come_back_scaled_once_and_only_in_their_variant() {
        let mut kept = KeptHistory::default();
        assert_eq!(kept.take::<International>(0, 100), None, "nothing kept yet");
        kept.keep::<International>(vec![vec![100, -60, 7], vec![40]]);
        assert_eq!(
            kept.take::<Russian>(0, 100),
            None,
            "another variant's table"
        );
        assert_eq!(
            kept.take::<International>(0, 0),
            None,
            "percent 0 keeps nothing"
        );
        assert_eq!(kept.take::<International>(0, 50), Some(vec![50, -30, 3]));
        assert_eq!(
            kept.take::<International>(0, 50),
            None,
            "a table is handed out once"
        );
        assert_eq!(kept.take::<International>(1, 100), Some(vec![40]));
        assert_eq!(kept.take::<International>(2, 100), None, "no such thread");
        kept.keep::<International>(vec![vec![1]]);
        kept.clear();
        assert_eq!(
            kept.take::<International>(0, 100),
            None,
            "cleared by a new game"
        );
    }
}
