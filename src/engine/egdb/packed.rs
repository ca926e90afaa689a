//! A slice read one block at a time, for probing inside the search.
//!
//! Loading a whole slice (up to a hundred million positions at five pieces on 10x10) takes a
//! tenth of a second or more, far more than a move at a fast time control has. A
//! [`PackedSlice`] reads only the file's header and block index when it opens; a probe reads
//! and decompresses the one block that holds its position, and a [`BlockCache`] shared by
//! every slice of a database keeps the blocks used last. The header and the block index are
//! checked when the slice opens, and each block against its own checksum when it is read (the
//! whole file's checksum is for whole loads), so a damaged file is an error, not wrong values.

use std::fs::File;
use std::path::Path;
use std::sync::Mutex;

use super::file::{EgdbError, Header, HEADER};
use super::Signature;
use crate::engine::filefmt::fnv1a;

/// A slice whose blocks stay on disk until a probe needs them.
#[derive(Debug)]
pub struct PackedSlice {
    file: File,
    /// Number of indices.
    len: u64,
    /// Positions per block.
    block: u64,
    /// Where each block starts in the file, and where the last one ends.
    starts: Box<[u64]>,
    /// The checksum of each compressed block.
    sums: Box<[u32]>,
    /// A number of its own, so that the cache tells slices apart.
    id: u32,
}

fn io(path: &Path, e: std::io::Error) -> EgdbError {
    EgdbError::Io {
        path: path.display().to_string(),
        reason: e.to_string(),
    }
}

/// Reads `buf.len()` bytes of `file` at `offset`, without moving a shared file position.
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        let (mut done, mut buf) = (0u64, buf);
        while !buf.is_empty() {
            match std::os::windows::fs::FileExt::seek_read(file, buf, offset + done)? {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n => {
                    done += n as u64;
                    buf = &mut buf[n..];
                }
            }
        }
        Ok(())
    }
}

impl PackedSlice {
    /// Opens a slice file of `game_type` and `sig`, reading its header and block index. `id`
    /// must differ between the slices that share a cache.
    pub fn open(
        path: &Path,
        game_type: u16,
        sig: Signature,
        id: u32,
    ) -> Result<PackedSlice, EgdbError> {
        let file = File::open(path).map_err(|e| io(path, e))?;
        let size = file.metadata().map_err(|e| io(path, e))?.len();
        let mut head = [0u8; HEADER];
        let n = size.min(HEADER as u64) as usize;
        read_at(&file, &mut head[..n], 0).map_err(|e| io(path, e))?;
        let head = Header::parse(&head[..n], size)?;
        if !head.block_sums() {
            return Err(EgdbError::Version(head.version));
        }
        head.check(game_type, sig)?;
        let Header {
            len, block, blocks, ..
        } = head;
        let table_end = head.table_end() as u64;
        if size < table_end + 4 {
            return Err(EgdbError::Damaged("short block index"));
        }
        let mut table = vec![0u8; table_end as usize - HEADER];
        read_at(&file, &mut table, HEADER as u64).map_err(|e| io(path, e))?;
        let u32_at = |b: &[u8], i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4"));
        let starts: Box<[u64]> = (0..=blocks)
            .map(|i| table_end + u32_at(&table, 4 * i) as u64)
            .collect();
        let sums: Box<[u32]> = (0..blocks)
            .map(|i| u32_at(&table, 4 * (blocks + 1 + i)))
            .collect();
        if starts.windows(2).any(|w| w[0] > w[1]) {
            return Err(EgdbError::Damaged("block index out of order"));
        }
        if starts[blocks] + 4 != size {
            return Err(EgdbError::Damaged("block index and size differ"));
        }
        Ok(PackedSlice {
            file,
            len,
            block,
            starts,
            sums,
            id,
        })
    }

    /// Number of indices.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the slice has no index.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The stored byte of index `i` (see [`Entry`](super::Entry)), through `cache`.
    pub fn byte(&self, i: u64, cache: &BlockCache) -> Result<u8, EgdbError> {
        if i >= self.len {
            return Err(EgdbError::Damaged("index past the slice"));
        }
        let b = i / self.block;
        let key = (u64::from(self.id) << 32 | b) + 1;
        let mut line = cache.lines[cache.line(key)]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if line.key != key {
            line.key = 0;
            let (from, to) = (self.starts[b as usize], self.starts[b as usize + 1]);
            let want = self.block.min(self.len - b * self.block) as usize;
            let CacheLine { raw, values, .. } = &mut *line;
            raw.resize((to - from) as usize, 0);
            read_at(&self.file, raw, from).map_err(|e| EgdbError::Io {
                path: format!("block {b} of an endgame slice"),
                reason: e.to_string(),
            })?;
            if fnv1a(raw) != self.sums[b as usize] {
                return Err(EgdbError::Damaged("a block's checksum does not match"));
            }
            values.resize(want, 0);
            match lz4_flex::block::decompress_into(raw, values) {
                Ok(n) if n == want => line.key = key,
                _ => return Err(EgdbError::Damaged("block does not decompress")),
            }
        }
        Ok(line.values[(i % self.block) as usize])
    }
}

/// One decompressed block and the buffer it was read into.
#[derive(Debug, Default)]
struct CacheLine {
    /// The slice and block held, plus one (0: none).
    key: u64,
    raw: Vec<u8>,
    values: Vec<u8>,
}

/// The blocks read last, shared by the slices of a database: a fixed number of lines, each
/// holding one block, a block's line chosen by hashing its slice and number.
#[derive(Debug)]
pub struct BlockCache {
    lines: Box<[Mutex<CacheLine>]>,
}

impl BlockCache {
    /// A cache of `lines` blocks (at least one).
    pub fn new(lines: usize) -> BlockCache {
        BlockCache {
            lines: (0..lines.max(1))
                .map(|_| Mutex::new(CacheLine::default()))
                .collect(),
        }
    }

    fn line(&self, key: u64) -> usize {
        let h = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        ((h >> 32) as usize) % self.lines.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::egdb::file::BLOCK;
    use crate::engine::egdb::Slice;

    #[test]
    fn blocks_read_one_at_a_time_agree_with_the_whole_slice() {
        let dir = std::env::temp_dir().join(format!("damast-packed-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let sig = Signature::new(2, 0, 1, 1);
        let n = 3 * BLOCK as usize + 123;
        let values: Vec<u8> = (0..n as u64).map(|i| (i * 31 % 253) as u8).collect();
        let whole = Slice::new(20, sig, values.clone());
        let path = dir.join("s.egdb");
        whole.save(&path).unwrap();
        // a cache smaller than the slice, so blocks are evicted and read again
        let cache = BlockCache::new(2);
        let p = PackedSlice::open(&path, 20, sig, 7).unwrap();
        assert_eq!(p.len(), n as u64);
        for i in (0..n as u64)
            .step_by(997)
            .chain([n as u64 - 1, 0, BLOCK, BLOCK - 1])
        {
            assert_eq!(p.byte(i, &cache), Ok(values[i as usize]), "index {i}");
        }
        assert!(p.byte(n as u64, &cache).is_err());
        // a second slice in the same cache does not read the first one's blocks
        let other: Vec<u8> = values.iter().map(|v| v ^ 1).collect();
        let path2 = dir.join("t.egdb");
        Slice::new(20, sig, other.clone()).save(&path2).unwrap();
        let q = PackedSlice::open(&path2, 20, sig, 8).unwrap();
        for i in [5u64, BLOCK + 5, 2 * BLOCK + 5] {
            assert_eq!(q.byte(i, &cache), Ok(other[i as usize]));
            assert_eq!(p.byte(i, &cache), Ok(values[i as usize]));
        }
        // wrong kind, damaged index, damaged block
        assert!(matches!(
            PackedSlice::open(&path, 21, sig, 9),
            Err(EgdbError::Mismatch { .. })
        ));
        let mut bytes = std::fs::read(&path).unwrap();
        let cut = dir.join("cut.egdb");
        std::fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap();
        assert!(PackedSlice::open(&cut, 20, sig, 10).is_err());
        let at = HEADER + 4 * (5 + 4) + 3;
        bytes[at] ^= 0xff;
        bytes[at + 1] ^= 0xff;
        std::fs::write(&cut, &bytes).unwrap();
        let d = PackedSlice::open(&cut, 20, sig, 11).unwrap();
        let fresh = BlockCache::new(4);
        // the first block's data is changed: its probes are errors, the other blocks read
        assert_eq!(
            d.byte(3, &fresh),
            Err(EgdbError::Damaged("a block's checksum does not match"))
        );
        assert_eq!(d.byte(BLOCK + 3, &fresh), Ok(values[BLOCK as usize + 3]));
        std::fs::remove_dir_all(&dir).ok();
    }
}
