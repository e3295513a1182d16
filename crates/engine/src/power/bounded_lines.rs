//! Lines of a program's output, each held to a bound: a meter program is the user's, and
//! one that prints a long line without a newline must not grow memory without end.

use std::io::{self, BufRead, BufReader, Read};

/// One line, without its newline: at most the bound, `cut` when more followed (dropped).
#[derive(Debug, PartialEq)]
pub(super) struct Line {
    pub(super) text: String,
    pub(super) cut: bool,
}

/// The lines of `reader`, each at most `max_bytes`. A longer line is handed on as soon as
/// the bound is reached (so a line that never ends is still seen); its rest is skipped.
pub(super) struct BoundedLines<R> {
    reader: BufReader<R>,
    max_bytes: usize,
    skipping: bool,
}

impl<R: Read> BoundedLines<R> {
    pub(super) fn new(reader: R, max_bytes: usize) -> BoundedLines<R> {
        BoundedLines {
            reader: BufReader::new(reader),
            max_bytes,
            skipping: false,
        }
    }

    /// Drop the rest of a cut line, up to and including its newline.
    fn skip_rest(&mut self) -> io::Result<()> {
        while self.skipping {
            let buf = self.reader.fill_buf()?;
            if buf.is_empty() {
                break;
            }
            let (used, ended) = match buf.iter().position(|&b| b == b'\n') {
                Some(newline) => (newline + 1, true),
                None => (buf.len(), false),
            };
            self.reader.consume(used);
            self.skipping = !ended;
        }
        Ok(())
    }
}

impl<R: Read> Iterator for BoundedLines<R> {
    type Item = io::Result<Line>;

    fn next(&mut self) -> Option<io::Result<Line>> {
        if let Err(e) = self.skip_rest() {
            return Some(Err(e));
        }
        let mut bytes = Vec::new();
        // One byte past the bound: a line of exactly the bound still has room for its newline.
        let limit = self.max_bytes as u64 + 1;
        match (&mut self.reader).take(limit).read_until(b'\n', &mut bytes) {
            Ok(0) => return None,
            Ok(_) => {}
            Err(e) => return Some(Err(e)),
        }
        let cut = bytes.last() != Some(&b'\n') && bytes.len() > self.max_bytes;
        if cut {
            bytes.truncate(self.max_bytes);
            self.skipping = true;
        } else if bytes.last() == Some(&b'\n') {
            bytes.pop();
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        Some(Ok(Line { text, cut }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: impl Read, max: usize) -> Vec<Line> {
        BoundedLines::new(input, max).map(Result::unwrap).collect()
    }

    fn line(text: &str, cut: bool) -> Line {
        Line {
            text: text.into(),
            cut,
        }
    }

    #[test]
    fn lines_within_the_bound_are_whole() {
        let got = lines(&b"3.2\n\nabcd\nlast"[..], 4);
        assert_eq!(
            got,
            [
                line("3.2", false),
                line("", false),
                line("abcd", false),
                line("last", false)
            ]
        );
    }

    #[test]
    fn a_long_line_is_cut_and_its_rest_dropped_without_holding_it() {
        // Far more than any bound, never in memory at once.
        let huge = io::repeat(b'x').take(64 << 20);
        let input = huge.chain(&b"\n3.2\n"[..]).chain(io::repeat(b'y').take(10));
        let got = lines(input, 8);
        assert_eq!(
            got,
            [
                line("xxxxxxxx", true),
                line("3.2", false),
                line("yyyyyyyy", true)
            ]
        );
    }
}
