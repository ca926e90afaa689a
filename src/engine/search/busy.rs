//! Marks of the moves search threads are in the middle of, so that other threads defer them.

use std::sync::atomic::{AtomicU64, Ordering};

/// The moves that search threads are in the middle of, so that the other threads put them off
/// and search something else first (Lazy SMP with deferral, the idea of ABDADA): one slot per
/// (position, move) hash, overwritten freely, so a mark may be lost or stale but is never
/// wrong for long.
pub struct Busy {
    slots: Box<[AtomicU64]>,
}

impl Busy {
    /// Slots in the table (a power of two).
    const SLOTS: usize = 1 << 13;

    /// An empty table.
    pub fn new() -> Busy {
        Busy {
            slots: (0..Self::SLOTS).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The mark of move `code` in the position of hash `hash` (never 0).
    #[inline]
    pub fn key(hash: u64, code: u32) -> u64 {
        (hash ^ u64::from(code).wrapping_mul(0x9E37_79B9_7F4A_7C15)) | 1
    }

    #[inline]
    fn slot(&self, key: u64) -> &AtomicU64 {
        &self.slots[(key >> 40) as usize & (Self::SLOTS - 1)]
    }

    /// Whether some thread is searching the move of `key`.
    #[inline]
    pub fn is_busy(&self, key: u64) -> bool {
        self.slot(key).load(Ordering::Relaxed) == key
    }

    /// Marks the move of `key` as being searched.
    #[inline]
    pub fn enter(&self, key: u64) {
        self.slot(key).store(key, Ordering::Relaxed);
    }

    /// Clears the mark of `key` (unless another move took the slot since).
    #[inline]
    pub fn leave(&self, key: u64) {
        let _ = self
            .slot(key)
            .compare_exchange(key, 0, Ordering::Relaxed, Ordering::Relaxed);
    }
}

impl Default for Busy {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_marks_are_set_seen_and_cleared() {
        let b = Busy::new();
        let k = Busy::key(0x1234_5678_9ABC_DEF0, 77);
        assert_ne!(k, 0);
        assert_ne!(k, Busy::key(0x1234_5678_9ABC_DEF0, 78));
        assert!(!b.is_busy(k));
        b.enter(k);
        assert!(b.is_busy(k));
        b.leave(k);
        assert!(!b.is_busy(k));
        // another move in the same slot takes it over; leaving the first keeps the second's mark
        let other = k ^ 2;
        assert_eq!(
            (k >> 40) as usize & (Busy::SLOTS - 1),
            (other >> 40) as usize & (Busy::SLOTS - 1)
        );
        b.enter(k);
        b.enter(other);
        assert!(!b.is_busy(k) && b.is_busy(other));
        b.leave(k);
        assert!(b.is_busy(other));
    }
}
