//! Splitting the DXP byte stream into messages.
//!
//! Messages end with a NUL byte; a read may hold several messages, or a part of one. The
//! [`Framer`] keeps the remainder between reads and never holds more than one message's worth of
//! bytes: a message that grows past [`MAX_MESSAGE`] without its NUL is reported at once as
//! [`Frame::Overlong`], and its bytes are dropped up to the next NUL.

use super::message::MAX_MESSAGE;

/// What the framer found in the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Frame {
    /// One message's bytes, without the NUL (never empty, at most [`MAX_MESSAGE`] bytes).
    Message(Vec<u8>),
    /// A message longer than [`MAX_MESSAGE`]; `first` is its first byte (its type letter).
    Overlong {
        /// The first byte of the overlong message.
        first: u8,
    },
}

/// Splits a stream on NUL bytes, keeping the remainder of the last read.
#[derive(Debug, Default)]
pub struct Framer {
    buf: Vec<u8>,
    /// Dropping the bytes of an overlong message until its NUL.
    skipping: bool,
}

impl Framer {
    /// A framer at the start of a stream.
    pub fn new() -> Framer {
        Framer::default()
    }

    /// Takes the bytes of one read and appends the complete frames found to `out`. Empty
    /// messages (two NULs in a row) are skipped.
    pub fn push(&mut self, mut bytes: &[u8], out: &mut Vec<Frame>) {
        while !bytes.is_empty() {
            let (chunk, complete) = match bytes.iter().position(|&b| b == 0) {
                Some(p) => (&bytes[..p], true),
                None => (bytes, false),
            };
            bytes = &bytes[chunk.len() + usize::from(complete)..];
            if !self.skipping {
                if self.buf.len() + chunk.len() > MAX_MESSAGE {
                    let first = self.buf.first().or(chunk.first()).copied().unwrap_or(0);
                    out.push(Frame::Overlong { first });
                    self.buf.clear();
                    self.skipping = true;
                } else {
                    self.buf.extend_from_slice(chunk);
                }
            }
            if complete {
                if !self.skipping && !self.buf.is_empty() {
                    out.push(Frame::Message(std::mem::take(&mut self.buf)));
                }
                self.buf.clear();
                self.skipping = false;
            }
        }
    }

    /// Bytes of an unfinished message held back (for logs when the stream ends).
    pub fn pending(&self) -> usize {
        self.buf.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn frames(reads: &[&[u8]]) -> Vec<Frame> {
        let mut f = Framer::new();
        let mut out = Vec::new();
        for r in reads {
            f.push(r, &mut out);
        }
        out
    }

    fn msg(s: &str) -> Frame {
        Frame::Message(s.as_bytes().to_vec())
    }

    #[test]
    fn splits_glued_and_joins_split_messages() {
        assert_eq!(
            frames(&[b"K0\0E00\0M00", b"1206", b"1100\0C"]),
            vec![msg("K0"), msg("E00"), msg("M0012061100")]
        );
        assert_eq!(frames(&[b"\0\0K0\0\0"]), vec![msg("K0")]);
    }

    #[test]
    fn overlong_messages_are_reported_once_and_skipped() {
        let long = vec![b'x'; 10_000];
        assert_eq!(
            frames(&[&long, &long, b"\0K0\0"]),
            vec![Frame::Overlong { first: b'x' }, msg("K0")]
        );
        let exact = vec![b'C'; MAX_MESSAGE];
        let mut one_more = exact.clone();
        one_more.push(b'C');
        assert_eq!(
            frames(&[&exact, b"\0"]),
            vec![Frame::Message(exact.clone())]
        );
        assert_eq!(
            frames(&[&one_more[..100], &one_more[100..], b"\0E00\0"]),
            vec![Frame::Overlong { first: b'C' }, msg("E00")]
        );
    }

    proptest! {
        #[test]
        fn any_split_gives_the_same_frames(
            msgs in proptest::collection::vec("[A-Z][0-9A-Za-z ]{0,140}", 0..8),
            cuts in proptest::collection::vec(any::<usize>(), 0..10),
        ) {
            let stream: Vec<u8> = msgs.iter().flat_map(|m| m.bytes().chain([0u8])).collect();
            let whole = frames(&[&stream]);
            let mut points: Vec<usize> = cuts.iter().map(|c| c % (stream.len() + 1)).collect();
            points.sort_unstable();
            let mut reads: Vec<&[u8]> = Vec::new();
            let mut last = 0;
            for p in points {
                reads.push(&stream[last..p]);
                last = p;
            }
            reads.push(&stream[last..]);
            prop_assert_eq!(frames(&reads), whole.clone());
            let expected: Vec<Frame> = msgs
                .iter()
                .map(|m| {
                    if m.len() > MAX_MESSAGE {
                        Frame::Overlong { first: m.as_bytes()[0] }
                    } else {
                        Frame::Message(m.as_bytes().to_vec())
                    }
                })
                .collect();
            prop_assert_eq!(whole, expected);
        }
    }
}
