//! The transposition table: shared by all search threads without locks.
//!
//! Each entry is two atomic words, the key XORed with the data and the data itself, so that a torn
//! write (two threads storing at once) is detected when the key check fails and the entry is
//! ignored. Buckets of four entries; the entry replaced is the one with the least depth, aged
//! entries from earlier searches going first. A bucket is one 64-byte cache line, and the search
//! prefetches a child's bucket as it makes the move, so the probe rarely waits for memory.
//! On Linux the table is aligned to 2 MiB and the kernel is asked to back it with huge pages,
//! so that its random probes do not also miss the address translation cache (about 4% more
//! nodes per second in `damast bench`).

use std::alloc::{self, Layout};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// What a stored score means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The exact score.
    Exact = 1,
    /// A lower bound (the search failed high).
    Lower = 2,
    /// An upper bound (the search failed low).
    Upper = 3,
}

/// A probed entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Stored score (mate scores relative to the stored node).
    pub score: i32,
    /// Remaining depth the score was searched to (kept from -1 to 126).
    pub depth: i32,
    /// What the score means.
    pub bound: Bound,
    /// Best move as (from bit, to bit, captured-set check), 0 for none.
    pub mv: u32,
}

const BUCKET: usize = 4;

struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

/// One cache line of entries.
#[repr(align(64))]
struct Bucket([Slot; BUCKET]);

/// The memory of a table: zeroed buckets in one allocation aligned to their whole size or to
/// a huge page (2 MiB), whichever is less.
struct Buckets {
    ptr: NonNull<Bucket>,
    len: usize,
}

/// The size (and alignment) of a huge page on Linux with 4 KiB base pages.
const HUGE_PAGE: usize = 2 << 20;

impl Buckets {
    /// `len` empty buckets (`len` a power of two).
    fn new(len: usize) -> Buckets {
        let layout = Self::layout(len);
        let size = layout.size();
        // SAFETY: the layout's size is not zero (at least 1024 buckets).
        let raw = unsafe { alloc::alloc(layout) };
        let Some(ptr) = NonNull::new(raw as *mut Bucket) else {
            alloc::handle_alloc_error(layout)
        };
        #[cfg(target_os = "linux")]
        // SAFETY: the range is the allocation just made; the advice is a hint that changes no
        // contents (and the memory is not yet touched, so it can be backed by huge pages).
        unsafe {
            libc::madvise(raw as *mut libc::c_void, size, libc::MADV_HUGEPAGE);
        }
        // SAFETY: all-zero bytes are valid atomics (empty slots); the range is the allocation.
        unsafe { std::ptr::write_bytes(raw, 0, size) };
        Buckets { ptr, len }
    }

    /// The allocation of `len` buckets (`len` a power of two).
    fn layout(len: usize) -> Layout {
        let size = len * std::mem::size_of::<Bucket>();
        Layout::from_size_align(size, size.min(HUGE_PAGE))
            .expect("a power-of-two size is a valid layout")
    }
}

impl std::ops::Deref for Buckets {
    type Target = [Bucket];

    fn deref(&self) -> &[Bucket] {
        // SAFETY: `ptr` holds `len` initialised buckets for as long as `self` lives.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Buckets {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout; the buckets need no drop.
        unsafe { alloc::dealloc(self.ptr.as_ptr() as *mut u8, Self::layout(self.len)) }
    }
}

// SAFETY: the buckets are atomics, shared between threads like a `Vec<Bucket>` would be.
unsafe impl Send for Buckets {}
// SAFETY: as above: every access goes through atomics.
unsafe impl Sync for Buckets {}

/// The shared table.
pub struct Tt {
    buckets: Buckets,
    mask: usize,
    age: AtomicU8,
}

impl Tt {
    /// A table of about `mib` MiB (rounded down to a power of two buckets; at least 1 MiB).
    pub fn new(mib: usize) -> Tt {
        let bytes = mib.clamp(1, 1 << 16) << 20;
        let fit = bytes / std::mem::size_of::<Bucket>();
        // the largest power of two that fits
        let buckets = (1usize << (usize::BITS - 1 - fit.leading_zeros())).max(1024);
        Tt {
            buckets: Buckets::new(buckets),
            mask: buckets - 1,
            age: AtomicU8::new(0),
        }
    }

    /// Size in MiB.
    pub fn size_mib(&self) -> usize {
        (self.buckets.len() * std::mem::size_of::<Bucket>()) >> 20
    }

    /// Forgets everything.
    pub fn clear(&self) {
        for s in self.buckets.iter().flat_map(|b| &b.0) {
            s.check.store(0, Ordering::Relaxed);
            s.data.store(0, Ordering::Relaxed);
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Marks the start of a new search (older entries become preferred victims).
    pub fn new_search(&self) {
        let a = self.age.load(Ordering::Relaxed);
        self.age.store((a + 1) & 63, Ordering::Relaxed);
    }

    #[inline]
    fn bucket(&self, key: u64) -> &[Slot; BUCKET] {
        &self.buckets[(key as usize) & self.mask].0
    }

    /// Asks the processor to bring `key`'s bucket into the cache, for a probe soon after (a
    /// hint only: it reads nothing and changes nothing).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let p = self.bucket(key) as *const [Slot; BUCKET] as *const i8;
            // SAFETY: a prefetch is a hint that cannot fault; `p` points into the table.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry stored for `key`, if any.
    pub fn probe(&self, key: u64) -> Option<Entry> {
        for s in self.bucket(key) {
            let data = s.data.load(Ordering::Relaxed);
            if data != 0 && s.check.load(Ordering::Relaxed) ^ data == key {
                return Some(unpack(data));
            }
        }
        None
    }

    /// Stores an entry for `key`. An entry without a move (`mv` 0) keeps the move of the entry
    /// it replaces for the same key.
    pub fn store(&self, key: u64, mut e: Entry) {
        let bucket = self.bucket(key);
        let age = self.age.load(Ordering::Relaxed) as u64;
        let mut victim = 0;
        let mut worst = i32::MAX;
        for (i, s) in bucket.iter().enumerate() {
            let data = s.data.load(Ordering::Relaxed);
            if data == 0 || s.check.load(Ordering::Relaxed) ^ data == key {
                // same position: a new entry without a move keeps the old one's, and leaves a
                // much deeper entry as it is
                victim = i;
                if data != 0 && e.mv == 0 {
                    let old = unpack(data);
                    if old.depth > e.depth + 2 {
                        return;
                    }
                    e.mv = old.mv;
                }
                break;
            }
            let old = unpack(data);
            let stale = if age_of(data) != age { 8 } else { 0 };
            let value = old.depth - stale;
            if value < worst {
                worst = value;
                victim = i;
            }
        }
        let data = pack(e, age);
        let s = &bucket[victim];
        s.check.store(key ^ data, Ordering::Relaxed);
        s.data.store(data, Ordering::Relaxed);
    }

    /// Permille of the first thousand buckets' entries used by the current search.
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed) as u64;
        let n = (self.buckets.len() * BUCKET).min(1000);
        let used = self
            .buckets
            .iter()
            .flat_map(|b| &b.0)
            .take(n)
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                d != 0 && age_of(d) == age
            })
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

/// One entry as a word: score (16 bits), depth + 1 (7), a bit unused, bound (2), move (32),
/// age (6).
fn pack(e: Entry, age: u64) -> u64 {
    let score = (e.score as i16) as u16 as u64;
    let depth = (e.depth.clamp(-1, 126) + 1) as u64;
    score | depth << 16 | (e.bound as u64) << 24 | (e.mv as u64 & 0xFFFF_FFFF) << 26 | age << 58
}

/// The age (search number) an entry word was stored in.
fn age_of(d: u64) -> u64 {
    d >> 58
}

fn unpack(d: u64) -> Entry {
    Entry {
        score: (d as u16) as i16 as i32,
        depth: ((d >> 16) & 0x7F) as i32 - 1,
        bound: match (d >> 24) & 3 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            _ => Bound::Upper,
        },
        mv: ((d >> 26) & 0xFFFF_FFFF) as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_probes() {
        let tt = Tt::new(1);
        let e = Entry {
            score: -1234,
            depth: 7,
            bound: Bound::Lower,
            mv: 0xABCDEF,
        };
        tt.store(0x1234_5678_9ABC_DEF0, e);
        assert_eq!(tt.probe(0x1234_5678_9ABC_DEF0), Some(e));
        assert_eq!(tt.probe(0x1234_5678_9ABC_DEF1), None);
        // depths beyond the packed range are kept as the deepest it holds
        let deep = Entry { depth: 200, ..e };
        tt.store(0x1234_5678_9ABC_DEF0, deep);
        assert_eq!(
            tt.probe(0x1234_5678_9ABC_DEF0),
            Some(Entry { depth: 126, ..deep })
        );
        tt.clear();
        assert_eq!(tt.probe(0x1234_5678_9ABC_DEF0), None);
        tt.prefetch(0x1234_5678_9ABC_DEF0);
    }

    #[test]
    fn an_entry_without_a_move_keeps_the_old_move() {
        let tt = Tt::new(1);
        let key = 0x0F0F_1234_5678_9ABC;
        let deep = Entry {
            score: 50,
            depth: 9,
            bound: Bound::Lower,
            mv: 77,
        };
        tt.store(key, deep);
        let shallow = Entry {
            score: -20,
            depth: 8,
            bound: Bound::Upper,
            mv: 0,
        };
        tt.store(key, shallow);
        assert_eq!(tt.probe(key), Some(Entry { mv: 77, ..shallow }));
        // a much deeper entry is left as it is by one without a move
        let shallower = Entry {
            depth: 5,
            ..shallow
        };
        tt.store(key, deep);
        tt.store(key, shallower);
        assert_eq!(tt.probe(key), Some(deep));
        // a new move replaces the old
        tt.store(key, Entry { mv: 5, ..shallow });
        assert_eq!(tt.probe(key).map(|e| e.mv), Some(5));
        // a new bound with a move replaces even a much deeper entry
        tt.store(key, deep);
        tt.store(key, Entry { mv: 6, ..shallower });
        assert_eq!(tt.probe(key), Some(Entry { mv: 6, ..shallower }));
    }

    #[test]
    fn buckets_are_cache_lines() {
        assert_eq!(std::mem::size_of::<Bucket>(), 64);
        assert_eq!(std::mem::align_of::<Bucket>(), 64);
        assert_eq!(Tt::new(4).size_mib(), 4);
        assert_eq!(
            Tt::new(6).size_mib(),
            4,
            "rounded down to a power of two buckets"
        );
        let tt = Tt::new(1);
        assert_eq!(tt.size_mib(), 1);
        assert_eq!(
            tt.buckets.as_ptr() as usize % (1 << 20),
            0,
            "aligned to its size"
        );
        let tt = Tt::new(8);
        assert_eq!(
            tt.buckets.as_ptr() as usize % HUGE_PAGE,
            0,
            "aligned to a huge page"
        );
    }

    #[test]
    fn new_tables_are_empty() {
        for mib in [1, 2, 16] {
            let tt = Tt::new(mib);
            assert!(tt.buckets.iter().flat_map(|b| &b.0).all(|s| {
                s.check.load(Ordering::Relaxed) == 0 && s.data.load(Ordering::Relaxed) == 0
            }));
            assert_eq!(tt.probe(0x1234), None);
        }
    }
}
