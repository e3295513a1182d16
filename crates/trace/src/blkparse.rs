//! blkparse's default text output (`blkparse -i DEV`):
//! `maj,min cpu seq seconds.nanoseconds pid action rwbs [sector + nsectors] [...]`.
//!
//! Events are paired into one record per queued IO by [`crate::pairing`], btt's way. Message
//! lines (`m`), plugs and unplugs are read and ignored; the per-CPU summary blkparse prints at
//! the end (from the first `CPU` or `Total` line) is ignored.

use std::collections::VecDeque;
use std::io::Read;

use crate::chunks::{Chunks, Step};
use crate::pairing::{Action, Event, Pairer};
use crate::text::{decimal_nano, show, uint, BadLine};
use crate::{Op, Record, TraceError, TraceReader};

/// Records from blkparse text: lines parsed on worker threads, events paired in order here.
pub(crate) struct Reader<R> {
    chunks: Chunks<R, Event>,
    file: String,
    pairer: Pairer,
    events: std::vec::IntoIter<Event>,
    out: VecDeque<Record>,
    /// A malformed line, reported after the records of the lines before it.
    error: Option<TraceError>,
    skipped: u64,
    done: bool,
}

impl<R: Read> Reader<R> {
    pub(crate) fn new(input: R, file: &str, skip_bad: bool) -> Self {
        Reader {
            chunks: Chunks::new(input, parse_line, skip_bad),
            file: file.to_string(),
            pairer: Pairer::new(),
            events: Vec::new().into_iter(),
            out: VecDeque::new(),
            error: None,
            skipped: 0,
            done: false,
        }
    }
}

impl<R: Read> Iterator for Reader<R> {
    type Item = Result<Record, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(r) = self.out.pop_front() {
                return Some(Ok(r));
            }
            if let Some(e) = self.events.next() {
                self.pairer.event(e, &mut self.out);
                continue;
            }
            if let Some(e) = self.error.take() {
                return Some(Err(e));
            }
            if self.done {
                return None;
            }
            match self.chunks.next() {
                None => {
                    self.done = true;
                    self.pairer.finish(&mut self.out);
                }
                Some(Err(error)) => {
                    self.done = true;
                    let file = self.file.clone();
                    return Some(Err(TraceError::Io { file, error }));
                }
                Some(Ok(parsed)) => {
                    self.skipped += parsed.skipped;
                    self.events = parsed.items.into_iter();
                    if let Some((line, msg)) = parsed.error {
                        self.done = true;
                        let file = self.file.clone();
                        self.error = Some(TraceError::Parse { file, line, msg });
                    }
                }
            }
        }
    }
}

impl<R: Read> TraceReader for Reader<R> {
    fn skipped(&self) -> u64 {
        self.skipped
    }
}

/// The op an rwbs string (`R`, `WS`, `DS`, `FWFS`, `FN`, `N`, ...) and a byte count mean.
/// `None` for events without data that are not flushes.
pub(crate) fn op_from_rwbs(rwbs: &[u8], bytes: u32) -> Option<Op> {
    let flush = rwbs.first() == Some(&b'F');
    let body = if flush { &rwbs[1..] } else { rwbs };
    let kind = body.first().copied();
    match kind {
        Some(b'D') => Some(Op::Discard),
        Some(b'W') if bytes > 0 => Some(Op::Write),
        Some(b'R') if bytes > 0 => Some(Op::Read),
        _ if flush => Some(Op::Flush),
        // blkparse prints 'R' for any non-write with data; a write of 0 bytes without the
        // flush flag carries nothing.
        _ => None,
    }
}

fn action_of(a: &[u8]) -> Option<Action> {
    Some(match a {
        b"Q" => Action::Queue,
        b"M" | b"F" => Action::Merge,
        b"D" => Action::Issue,
        b"C" => Action::Complete,
        b"R" => Action::Requeue,
        b"A" | b"G" | b"I" | b"P" | b"U" | b"UT" | b"T" | b"S" | b"X" | b"B" | b"m" => {
            Action::Other
        }
        _ => return None,
    })
}

const POW10: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// The decimal digits that start eight bytes read little-endian: how many, and their value.
/// Without a branch per digit, whose mispredictions at each number's end otherwise cost more
/// than the rest of the parsing (Lemire's eight-digit method).
fn swar_digits(word: u64) -> (usize, u64) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // Digits become 0..=9; any other byte gets its top bit set, here or after adding 118.
    // Carries only run from a non-digit upwards, past the first one, which is all we read.
    let x = word ^ (b'0' as u64 * ONES);
    let non_digit = (x.wrapping_add(118 * ONES) | x) & (0x80 * ONES);
    let n = (non_digit.trailing_zeros() / 8) as usize;
    if n == 0 {
        return (0, 0);
    }
    // The n digits moved to the top, as if led by zeros, and combined in three steps.
    let x = x << (64 - 8 * n);
    let x = x.wrapping_mul(10).wrapping_add(x >> 8);
    let mask = 0x0000_00FF_0000_00FF;
    let x = ((x & mask).wrapping_mul(100 + (1_000_000 << 32)))
        .wrapping_add(((x >> 16) & mask).wrapping_mul(1 + (10_000 << 32)))
        >> 32;
    (n, x)
}

/// A device as blkparse prints it, `maj,min`, packed as the kernel's dev_t.
pub(crate) fn parse_dev(f: &[u8]) -> Result<u32, BadLine> {
    let mut parts = Fields { line: f, pos: 0 };
    let maj = parts.digits();
    let comma = parts.line.get(parts.pos) == Some(&b',');
    parts.pos += usize::from(comma);
    match (maj, comma, parts.digits()) {
        (Some(maj), true, Some(min)) if parts.pos == f.len() && maj < 1 << 12 && min < 1 << 20 => {
            Ok(((maj as u32) << 20) | min as u32)
        }
        _ => Err(format!("expected a device major,minor, found {}", show(f)).into()),
    }
}

/// A line read field by field (fields are separated by spaces or tabs), each number parsed
/// in the one pass that finds its end: the parsing is most of a trace's reading time.
struct Fields<'a> {
    line: &'a [u8],
    pos: usize,
}

impl<'a> Fields<'a> {
    fn skip_space(&mut self) {
        while self.line.get(self.pos).is_some_and(u8::is_ascii_whitespace) {
            self.pos += 1;
        }
    }

    /// The field starting at `start`, up to the next space.
    fn token_at(&self, start: usize) -> &'a [u8] {
        let rest = &self.line[start..];
        let len = rest
            .iter()
            .position(u8::is_ascii_whitespace)
            .unwrap_or(rest.len());
        &rest[..len]
    }

    fn next(&mut self) -> Option<&'a [u8]> {
        self.skip_space();
        if self.pos == self.line.len() {
            return None;
        }
        let token = self.token_at(self.pos);
        self.pos += token.len();
        Some(token)
    }

    /// The next field, or an error naming it.
    fn field(&mut self, what: &str) -> Result<&'a [u8], BadLine> {
        self.next()
            .ok_or_else(|| format!("expected {what}, found end of line").into())
    }

    /// Up to 19 digits from here (so no overflow); `None` when none.
    fn digits(&mut self) -> Option<u64> {
        let start = self.pos;
        let mut v: u64 = 0;
        // Eight bytes at a time where the line has them, one at a time at its end.
        while let Some(word) = self.line.get(self.pos..self.pos + 8) {
            let (n, eight) = swar_digits(u64::from_le_bytes(word.try_into().expect("8 bytes")));
            let room = 19 - (self.pos - start);
            if n > room {
                break;
            }
            v = v * POW10[n] + eight;
            self.pos += n;
            if n < 8 {
                return (self.pos > start).then_some(v);
            }
        }
        while let Some(d) = self.line.get(self.pos).map(|b| b.wrapping_sub(b'0')) {
            if d > 9 || self.pos - start == 19 {
                break;
            }
            v = v * 10 + u64::from(d);
            self.pos += 1;
        }
        (self.pos > start).then_some(v)
    }

    /// Whether the field ends here.
    fn at_end_of_field(&self) -> bool {
        self.line
            .get(self.pos)
            .is_none_or(|b| b.is_ascii_whitespace())
    }

    /// The next field as an unsigned integer. Up to 19 digits are read at once; longer
    /// fields (and anything else) go through `text::uint` for its checks and messages.
    fn uint(&mut self, what: &str) -> Result<u64, BadLine> {
        self.skip_space();
        let start = self.pos;
        match self.digits() {
            Some(v) if self.at_end_of_field() => Ok(v),
            _ => {
                self.pos = start;
                uint(self.field(what)?, what)
            }
        }
    }

    /// The next field as seconds with up to nine decimals, in nanoseconds.
    fn seconds(&mut self, what: &str) -> Result<u64, BadLine> {
        self.skip_space();
        let start = self.pos;
        if let Some(secs) = self.digits().filter(|&s| s < 1 << 32) {
            if self.line.get(self.pos) == Some(&b'.') {
                self.pos += 1;
                let frac_start = self.pos;
                if let Some(frac) = self.digits() {
                    let places = self.pos - frac_start;
                    if places <= 9 && self.at_end_of_field() {
                        return Ok(secs * 1_000_000_000 + frac * 10u64.pow(9 - places as u32));
                    }
                }
            }
        }
        self.pos = start;
        decimal_nano(self.field(what)?, what)
    }
}

/// One line of blkparse text: an event, a line without effect on the records, or the start
/// of the summary blkparse prints after the events.
fn parse_line(line: &[u8]) -> Result<Step<Event>, BadLine> {
    let mut f = Fields { line, pos: 0 };
    let Some(first) = f.next() else {
        return Ok(Step::Skip);
    };
    if first.starts_with(b"CPU") || first == b"Total" {
        return Ok(Step::End);
    }
    let dev = parse_dev(first)?;
    let _cpu = f.uint("cpu")?;
    let _seq = f.uint("sequence number")?;
    let time_ns = f.seconds("time (seconds)")?;
    let _pid = f.uint("pid")?;
    let af = f.field("action")?;
    let action = action_of(af).ok_or_else(|| {
        format!(
            "expected an action (Q M F G I D C R A P U ...), found {}",
            show(af)
        )
    })?;
    if action == Action::Other {
        return Ok(Step::Skip);
    }
    let rwbs = f.field("rwbs")?;
    f.skip_space();
    let (sector, bytes) = match f.line.get(f.pos) {
        Some(b) if b.is_ascii_digit() => {
            let sector = f.uint("sector")?;
            if sector > crate::record::MAX_SECTOR {
                return Err(format!("sector {sector} is beyond any device").into());
            }
            match f.next() {
                Some(b"+") => {
                    let n = f.uint("sector count")?;
                    let bytes = crate::text::sectors_len(n, "sector count")?;
                    (sector, bytes)
                }
                _ => (sector, 0),
            }
        }
        Some(b'[') | None => (0, 0),
        Some(_) => {
            let s = f.token_at(f.pos);
            return Err(format!("expected a sector number, found {}", show(s)).into());
        }
    };
    Ok(Step::Item(Event {
        dev,
        action,
        op: op_from_rwbs(rwbs, bytes),
        sector,
        bytes,
        time_ns,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Input without line breaks is refused after a bounded read (issue #66, item 13).
    #[test]
    fn a_line_without_end_is_refused_after_a_mebibyte() {
        use std::io::Read;
        let zeros = std::io::repeat(0).take(64 << 20);
        let mut reader = Reader::new(zeros, "/dev/zero", true);
        let e = reader.next().unwrap().unwrap_err().to_string();
        assert!(e.contains("a line longer than 1 MiB"), "{e}");
    }

    #[test]
    fn eight_bytes_give_the_digits_they_start_with() {
        for s in [
            "12345678",
            "1234567 ",
            "1       ",
            "0000000x",
            "9 abcdef",
            "x1234567",
            "98765432",
            "00000001",
            "5.123456",
            "7\0\0\0\0\0\0\0",
            "3\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}\u{7f}",
            "4///////",
        ] {
            let bytes: [u8; 8] = s.as_bytes().try_into().unwrap();
            let n = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            let v = std::str::from_utf8(&bytes[..n])
                .unwrap()
                .parse()
                .unwrap_or(0);
            assert_eq!(swar_digits(u64::from_le_bytes(bytes)), (n, v), "{s:?}");
        }
    }

    #[test]
    fn numbers_of_every_length_parse_as_text_uint_does() {
        let line =
            b"99999999999999999999 12345678901234567890 1234567890123456789 5 99999999 123456789";
        let mut f = Fields { line, pos: 0 };
        // 20 digits, more than one pass reads: text::uint takes them, or says they are too
        // large.
        assert!(f.uint("x").unwrap_err().0.contains("too large"));
        assert_eq!(f.uint("x"), Ok(12_345_678_901_234_567_890));
        assert_eq!(f.uint("x"), Ok(1_234_567_890_123_456_789));
        assert_eq!(f.uint("x"), Ok(5));
        assert_eq!(f.uint("x"), Ok(99_999_999));
        assert_eq!(f.uint("x"), Ok(123_456_789));
        assert_eq!(f.uint("x"), Err("expected x, found end of line".into()));
        let mut f = Fields {
            line: b"12.5 0.000000001 7 1.1234567891 x",
            pos: 0,
        };
        assert_eq!(f.seconds("t"), Ok(12_500_000_000));
        assert_eq!(f.seconds("t"), Ok(1));
        assert_eq!(f.seconds("t"), Ok(7_000_000_000));
        assert_eq!(f.seconds("t"), Ok(1_123_456_789));
        assert!(f.seconds("t").is_err());
    }

    #[test]
    fn devices_are_major_comma_minor() {
        assert_eq!(parse_dev(b"8,16"), Ok((8 << 20) | 16));
        for bad in [&b"8"[..], b"8,", b",1", b"8,1x", b"4096,0", b"8;1"] {
            assert!(parse_dev(bad).is_err(), "{bad:?}");
        }
    }
}
