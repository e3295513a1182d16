//! The machinery every line-oriented reader shares: buffered line splitting, line numbers,
//! malformed-line errors naming file and line, and `skip_bad`.

use std::collections::VecDeque;
use std::io::{BufRead, Read};

use crate::{Record, TraceError, TraceReader};

/// What is wrong with one line of a text trace, in words ("expected the sector, found
/// `x`"); the reader adds the file name and line number.
#[derive(Debug, PartialEq)]
pub(crate) struct BadLine(pub(crate) String);

impl From<String> for BadLine {
    fn from(msg: String) -> BadLine {
        BadLine(msg)
    }
}

impl From<&str> for BadLine {
    fn from(msg: &str) -> BadLine {
        BadLine(msg.to_string())
    }
}

impl std::fmt::Display for BadLine {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Parses one line of a text format. A [`BadLine`] says what was expected; the reader adds
/// the file name and line number.
pub(crate) trait LineParser {
    fn parse(&mut self, line: &[u8], out: &mut VecDeque<Record>) -> Result<(), BadLine>;
    /// End of input: flush whatever is still held (incomplete IOs).
    fn finish(&mut self, _out: &mut VecDeque<Record>) {}
}

/// The longest line a text trace may have: its lines are a few hundred bytes, and input
/// without line breaks (/dev/zero, a binary file) must not be read whole into memory.
pub(crate) const MAX_LINE: usize = 1 << 20;

/// The error of a line longer than [`MAX_LINE`].
pub(crate) fn line_too_long() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        "a line longer than 1 MiB, which no text trace has: is this a trace of the format \
         given (--format)?",
    )
}

pub(crate) struct TextReader<R, P> {
    input: R,
    parser: P,
    file: String,
    line_no: u64,
    buf: Vec<u8>,
    out: VecDeque<Record>,
    skip_bad: bool,
    skipped: u64,
    done: bool,
}

impl<R: BufRead, P: LineParser> TextReader<R, P> {
    pub(crate) fn new(input: R, parser: P, file: &str, skip_bad: bool) -> Self {
        TextReader {
            input,
            parser,
            file: file.to_string(),
            line_no: 0,
            buf: Vec::with_capacity(256),
            out: VecDeque::new(),
            skip_bad,
            skipped: 0,
            done: false,
        }
    }
}

impl<R: BufRead, P: LineParser> Iterator for TextReader<R, P> {
    type Item = Result<Record, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(r) = self.out.pop_front() {
                return Some(Ok(r));
            }
            if self.done {
                return None;
            }
            self.buf.clear();
            let line = (&mut self.input)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut self.buf)
                .and_then(|n| match n > MAX_LINE {
                    true => Err(line_too_long()),
                    false => Ok(n),
                });
            match line {
                Err(e) => {
                    self.done = true;
                    return Some(Err(TraceError::Io {
                        file: self.file.clone(),
                        error: e,
                    }));
                }
                Ok(0) => {
                    self.done = true;
                    self.parser.finish(&mut self.out);
                    continue;
                }
                Ok(_) => {}
            }
            self.line_no += 1;
            let mut line: &[u8] = &self.buf;
            while let [rest @ .., b'\n' | b'\r'] = line {
                line = rest;
            }
            if let Err(msg) = self.parser.parse(line, &mut self.out) {
                if self.skip_bad {
                    self.skipped += 1;
                    continue;
                }
                return Some(Err(TraceError::Parse {
                    file: self.file.clone(),
                    line: self.line_no,
                    msg: msg.0,
                }));
            }
        }
    }
}

impl<R: BufRead, P: LineParser> TraceReader for TextReader<R, P> {
    fn skipped(&self) -> u64 {
        self.skipped
    }
}

/// Fields split on commas, spaces or tabs (empty fields between commas are kept).
pub(crate) fn csv_fields(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|&b| b == b',').map(trim)
}

pub(crate) fn ws_fields(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|b| b.is_ascii_whitespace())
        .filter(|f| !f.is_empty())
}

pub(crate) fn trim(mut f: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = f {
        f = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = f {
        f = rest;
    }
    f
}

pub(crate) fn is_blank_or_comment(line: &[u8]) -> bool {
    let t = trim(line);
    t.is_empty() || t[0] == b'#'
}

pub(crate) fn show(f: &[u8]) -> String {
    let s = String::from_utf8_lossy(f);
    if s.chars().count() > 40 {
        let head: String = s.chars().take(40).collect();
        format!("{head:?}...")
    } else {
        format!("{s:?}")
    }
}

/// A decimal unsigned integer.
pub(crate) fn uint(f: &[u8], what: &str) -> Result<u64, BadLine> {
    if f.is_empty() || f.len() > 20 {
        return Err(format!("expected {what} (an unsigned integer), found {}", show(f)).into());
    }
    let mut v: u64 = 0;
    for &b in f {
        if !b.is_ascii_digit() {
            return Err(format!("expected {what} (an unsigned integer), found {}", show(f)).into());
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(b - b'0')))
            .ok_or_else(|| format!("{what} {} is too large", show(f)))?;
    }
    Ok(v)
}

/// A non-negative decimal number of seconds (or any unit) as an exact count of 10^-9 units:
/// "12.5" -> 12_500_000_000. At most 9 decimals are kept.
pub(crate) fn decimal_nano(f: &[u8], what: &str) -> Result<u64, BadLine> {
    let bad = || {
        format!(
            "expected {what} (a non-negative decimal number), found {}",
            show(f)
        )
    };
    let (int, frac) = match f.iter().position(|&b| b == b'.') {
        Some(p) => (&f[..p], &f[p + 1..]),
        None => (f, &f[f.len()..]),
    };
    if int.is_empty() && frac.is_empty() {
        return Err(bad().into());
    }
    let i = if int.is_empty() {
        0
    } else {
        uint(int, what).map_err(|_| bad())?
    };
    let mut n: u64 = 0;
    let mut digits = 0;
    for &b in frac {
        if !b.is_ascii_digit() {
            return Err(bad().into());
        }
        if digits < 9 {
            n = n * 10 + u64::from(b - b'0');
            digits += 1;
        }
    }
    while digits < 9 {
        n *= 10;
        digits += 1;
    }
    i.checked_mul(1_000_000_000)
        .and_then(|v| v.checked_add(n))
        .ok_or_else(|| format!("{what} {} is too large", show(f)).into())
}

pub(crate) fn u32_len(v: u64, what: &str) -> Result<u32, BadLine> {
    u32::try_from(v).map_err(|_| BadLine(format!("{what} {v} is larger than 4 GiB")))
}

/// A length given in 512-byte sectors, in bytes.
pub(crate) fn sectors_len(sectors: u64, what: &str) -> Result<u32, BadLine> {
    sectors
        .checked_mul(512)
        .and_then(|b| u32::try_from(b).ok())
        .ok_or_else(|| format!("{what} of {sectors} sectors is larger than 4 GiB").into())
}

/// Next field or an error naming it.
pub(crate) fn field<'a>(
    it: &mut impl Iterator<Item = &'a [u8]>,
    what: &str,
) -> Result<&'a [u8], BadLine> {
    it.next()
        .ok_or_else(|| format!("expected {what}, found end of line").into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufReader, Read};

    /// Input without line breaks (/dev/zero given as a trace) is refused after a bounded
    /// read, not read whole into memory (issue #66, item 13).
    #[test]
    fn a_line_without_end_is_refused_after_a_mebibyte() {
        let zeros = BufReader::new(std::io::repeat(0).take(64 << 20));
        let parser = crate::fio_iolog::Parser::default();
        let mut reader = TextReader::new(zeros, parser, "/dev/zero", true);
        let e = reader.next().unwrap().unwrap_err().to_string();
        assert!(e.contains("a line longer than 1 MiB"), "{e}");
        assert!(reader.next().is_none());
    }
}
