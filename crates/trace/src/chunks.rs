//! Text parsed in parallel: the input is cut into chunks of whole lines, each chunk's lines
//! are parsed on a worker thread, and the chunks come back in input order.
//!
//! The reading and whatever must see the lines in order (blktrace's event pairing) stay on the
//! caller's thread; only the line parsing, which needs no state, runs on the workers. Memory is
//! bounded by the chunks in flight (`AHEAD` of `CHUNK_BYTES`), not by the input's length.

use std::collections::VecDeque;
use std::io::Read;
use std::thread::JoinHandle;

use crate::text::BadLine;

/// Bytes read per chunk: large enough that starting a thread per chunk costs nothing, small
/// enough that the first records come out at once.
const CHUNK_BYTES: usize = 2 << 20;

/// What one line says.
pub(crate) enum Step<T> {
    Item(T),
    /// A line with nothing for the reader (a plug, a message, a blank line).
    Skip,
    /// The data ends at this line (blkparse's summary follows the events): stop reading.
    End,
}

/// Parses one line; `Err` says what was expected there.
pub(crate) type LineFn<T> = fn(&[u8]) -> Result<Step<T>, BadLine>;

/// One chunk's lines, parsed.
pub(crate) struct Parsed<T> {
    pub items: Vec<T>,
    /// Malformed lines skipped (`skip_bad`).
    pub skipped: u64,
    /// The first malformed line (its number counted from 1 in the whole input) and what was
    /// expected there; the chunk's items stop before it.
    pub error: Option<(u64, String)>,
    /// The data ended in this chunk.
    pub end: bool,
    /// The chunk's text, handed back for the next chunk to reuse.
    buf: Vec<u8>,
    lines: u64,
}

/// Chunks of parsed lines, in input order.
pub(crate) struct Chunks<R, T> {
    input: R,
    parse: LineFn<T>,
    skip_bad: bool,
    /// Chunks being parsed, oldest first.
    pending: VecDeque<JoinHandle<Parsed<T>>>,
    ahead: usize,
    /// The start of a line cut by the last chunk's end.
    carry: Vec<u8>,
    spare: Vec<Vec<u8>>,
    lines_before: u64,
    eof: bool,
    ended: bool,
}

impl<R: Read, T: Send + 'static> Chunks<R, T> {
    pub(crate) fn new(input: R, parse: LineFn<T>, skip_bad: bool) -> Self {
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        Chunks {
            input,
            parse,
            skip_bad,
            pending: VecDeque::new(),
            // One chunk more than workers: a worker finds its next chunk ready.
            ahead: workers + 1,
            carry: Vec::new(),
            spare: Vec::new(),
            lines_before: 0,
            eof: false,
            ended: false,
        }
    }

    /// The next chunk of whole lines, or `None` at the end of input.
    fn read_chunk(&mut self) -> std::io::Result<Option<Vec<u8>>> {
        if self.eof {
            return Ok(None);
        }
        let mut buf = self.spare.pop().unwrap_or_default();
        buf.clear();
        buf.append(&mut self.carry);
        let mut want = CHUNK_BYTES;
        loop {
            let start = buf.len();
            if start < want {
                buf.resize(want, 0);
                let n = read_full(&mut self.input, &mut buf[start..])?;
                buf.truncate(start + n);
                if n < want - start {
                    self.eof = true;
                    return Ok((!buf.is_empty()).then_some(buf));
                }
            }
            // Cut after the last newline; a line longer than the chunk makes it grow.
            match memchr::memrchr(b'\n', &buf) {
                Some(i) => {
                    self.carry.extend_from_slice(&buf[i + 1..]);
                    buf.truncate(i + 1);
                    return Ok(Some(buf));
                }
                // No trace has lines this long: /dev/zero, or a binary file, is no text trace.
                None if buf.len() >= crate::text::MAX_LINE => {
                    return Err(crate::text::line_too_long());
                }
                None => want = buf.len() * 2,
            }
        }
    }

    /// Keep `ahead` chunks being parsed.
    fn fill(&mut self) -> std::io::Result<()> {
        while self.pending.len() < self.ahead {
            let Some(buf) = self.read_chunk()? else { break };
            let (parse, skip_bad) = (self.parse, self.skip_bad);
            let worker = std::thread::Builder::new()
                .name("ssdlab-trace-parser".into())
                .spawn(move || parse_chunk(buf, parse, skip_bad))?;
            self.pending.push_back(worker);
        }
        Ok(())
    }
}

impl<R: Read, T: Send + 'static> Iterator for Chunks<R, T> {
    type Item = std::io::Result<Parsed<T>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.ended {
            return None;
        }
        if let Err(e) = self.fill() {
            self.ended = true;
            return Some(Err(e));
        }
        let handle = self.pending.pop_front()?;
        let mut parsed = handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        if let Some((line, _)) = &mut parsed.error {
            *line += self.lines_before;
        }
        self.lines_before += parsed.lines;
        if parsed.end || parsed.error.is_some() {
            // What was read past this point is not wanted; its workers finish on their own.
            self.ended = true;
            self.pending.clear();
        }
        self.spare.push(std::mem::take(&mut parsed.buf));
        Some(Ok(parsed))
    }
}

fn parse_chunk<T>(buf: Vec<u8>, parse: LineFn<T>, skip_bad: bool) -> Parsed<T> {
    // About 70 bytes a line in blkparse's output.
    let mut items = Vec::with_capacity(buf.len() / 64);
    let (mut lines, mut skipped, mut error, mut end) = (0, 0, None, false);
    let mut rest: &[u8] = &buf;
    while !rest.is_empty() {
        let (mut line, next) = match memchr::memchr(b'\n', rest) {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &rest[rest.len()..]),
        };
        rest = next;
        lines += 1;
        if let [head @ .., b'\r'] = line {
            line = head;
        }
        match parse(line) {
            Ok(Step::Item(t)) => items.push(t),
            Ok(Step::Skip) => {}
            Ok(Step::End) => {
                end = true;
                break;
            }
            Err(_) if skip_bad => skipped += 1,
            Err(msg) => {
                error = Some((lines, msg.0));
                break;
            }
        }
    }
    Parsed {
        items,
        skipped,
        error,
        end,
        buf,
        lines,
    }
}

/// Fill `buf` unless the input ends first; the bytes read.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match input.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(line: &[u8]) -> Result<Step<u64>, BadLine> {
        match line {
            b"" => Ok(Step::Skip),
            b"end" => Ok(Step::End),
            l => std::str::from_utf8(l)
                .ok()
                .and_then(|s| s.parse().ok())
                .map(Step::Item)
                .ok_or_else(|| "expected a number".into()),
        }
    }

    fn all(text: &[u8], skip_bad: bool) -> (Vec<u64>, u64, Option<(u64, String)>) {
        let (mut items, mut skipped, mut error) = (Vec::new(), 0, None);
        for p in Chunks::new(text, numbers, skip_bad) {
            let p = p.unwrap();
            items.extend(p.items);
            skipped += p.skipped;
            error = error.or(p.error);
        }
        (items, skipped, error)
    }

    #[test]
    fn chunks_keep_input_order_and_cut_only_between_lines() {
        // Several chunks, lines of every length cut at every place by the chunk size.
        let want: Vec<u64> = (0..1_500_000u64).map(|i| i * 7919 % 1_000_003).collect();
        let mut text: Vec<u8> = Vec::new();
        for v in &want {
            text.extend_from_slice(format!("{v}\r\n").as_bytes());
        }
        text.extend_from_slice(b"\n42"); // a blank line, and no newline at the end
        let (items, skipped, error) = all(&text, false);
        assert_eq!(items.len(), want.len() + 1);
        assert_eq!(&items[..want.len()], &want[..]);
        assert_eq!(items[want.len()], 42);
        assert_eq!((skipped, error), (0, None));
    }

    #[test]
    fn a_bad_line_is_numbered_in_the_whole_input_or_skipped() {
        let mut text: Vec<u8> = Vec::new();
        for i in 0..1_000_000u64 {
            text.extend_from_slice(format!("{i}\n").as_bytes());
        }
        text.extend_from_slice(b"x\n5\n");
        let (items, _, error) = all(&text, false);
        assert_eq!(items.len(), 1_000_000);
        assert_eq!(error, Some((1_000_001, "expected a number".into())));
        let (items, skipped, error) = all(&text, true);
        assert_eq!((items.len(), skipped, error), (1_000_001, 1, None));
    }

    #[test]
    fn the_data_ends_where_a_line_says_so() {
        let (items, _, _) = all(b"1\n2\nend\n3\nx\n", false);
        assert_eq!(items, [1, 2]);
    }

    #[test]
    fn a_long_line_across_a_chunk_boundary_is_read_whole() {
        // Half a MiB of digits (under the 1 MiB a line may have) starting just before the
        // first chunk's end.
        let mut text = b"1\n".repeat((CHUNK_BYTES - 1000) / 2);
        text.extend(vec![b'0'; crate::text::MAX_LINE / 2]);
        text.extend_from_slice(b"7\n8\n");
        let (items, _, error) = all(&text, false);
        assert_eq!(error, None);
        assert_eq!(items[items.len() - 2..], [7, 8]);
        assert!(items[..items.len() - 2].iter().all(|&i| i == 1));
    }
}
