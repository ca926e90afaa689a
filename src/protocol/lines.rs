//! Reading a byte stream as lines of bounded length: the shared input side of the line protocols
//! (the Hub engine reading its GUI, the match runner reading its engines).

use std::io::{self, BufRead};

/// Reads lines (without their `\n`) of at most `max` bytes, passing each on (`Err` for an
/// overlong one, whose bytes are dropped) until `send` returns false or the input ends. A read
/// error counts as the end of the input; a last line without `\n` is passed on too.
pub fn read_lines<R: BufRead>(
    mut reader: R,
    max: usize,
    mut send: impl FnMut(Result<Vec<u8>, ()>) -> bool,
) {
    let mut line = Vec::new();
    let mut overlong = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => &[][..],
        };
        if buf.is_empty() {
            if overlong {
                send(Err(()));
            } else if !line.is_empty() {
                send(Ok(std::mem::take(&mut line)));
            }
            return;
        }
        let (chunk, complete) = match buf.iter().position(|&b| b == b'\n') {
            Some(p) => (&buf[..p], true),
            None => (buf, false),
        };
        if !overlong {
            if line.len() + chunk.len() > max {
                overlong = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = chunk.len() + usize::from(complete);
        reader.consume(used);
        if complete {
            let item = if overlong {
                Err(())
            } else {
                Ok(std::mem::take(&mut line))
            };
            overlong = false;
            if !send(item) {
                return;
            }
        }
    }
}
