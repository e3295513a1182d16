//! ssdlab's own trace format: compact, fast to read and write, lossless for [`Record`].
//!
//! ```text
//! header   "SSDLTRCE" (8 bytes) | version u16 LE (= 1) | 6 reserved bytes (0)
//! record   flags u8 | [stream varint] | offset delta | len varint | times
//! trailer  0x80 | record count varint
//! ```
//! `flags`: bits 0-1 op (0 read, 1 write, 2 discard, 3 flush), bit 2 has queue time, bit 3 has
//! issue time, bit 4 has completion time, bit 5 merged, bit 6 same stream as the previous
//! record (the stream is then omitted); bit 7 marks the trailer. Integers are LEB128 varints;
//! signed deltas are zigzag-encoded. The offset is a delta from the previous record's end (0 for
//! a sequential IO); the first present time is a delta from the previous record's first time,
//! each further present time a delta from the one before it in the same record. A typical
//! record takes 6 to 12 bytes. The trailer's count lets a reader tell a complete file from a
//! truncated one.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

use crate::{Op, Record, TraceError, TraceReader, TraceWriter};

pub const MAGIC: &[u8; 8] = b"SSDLTRCE";
pub const VERSION: u16 = 1;
const HEADER_LEN: usize = 16;
const MAX_RECORD: usize = 1 + 5 + 10 + 5 + 3 * 10;

const F_Q: u8 = 1 << 2;
const F_D: u8 = 1 << 3;
const F_C: u8 = 1 << 4;
const F_MERGED: u8 = 1 << 5;
const F_SAME_STREAM: u8 = 1 << 6;
const F_TRAILER: u8 = 1 << 7;

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn put_varint(buf: &mut [u8], mut n: usize, mut v: u64) -> usize {
    while v >= 0x80 {
        buf[n] = (v as u8) | 0x80;
        v >>= 7;
        n += 1;
    }
    buf[n] = v as u8;
    n + 1
}

#[derive(Default, Clone, Copy)]
struct Prev {
    end: u64,
    start: u64,
    stream: u32,
}

/// Writes the native format.
pub struct NativeWriter<W: Write> {
    out: W,
    prev: Prev,
    count: u64,
    header: bool,
    name: String,
}

impl<W: Write> NativeWriter<W> {
    pub fn new(out: W) -> Self {
        NativeWriter {
            out,
            prev: Prev::default(),
            count: 0,
            header: false,
            name: "native output".into(),
        }
    }

    fn io_err(&self, e: std::io::Error) -> TraceError {
        TraceError::Io {
            file: self.name.clone(),
            error: e,
        }
    }

    fn write_header(&mut self) -> Result<(), TraceError> {
        if !self.header {
            let mut h = [0u8; HEADER_LEN];
            h[..8].copy_from_slice(MAGIC);
            h[8..10].copy_from_slice(&VERSION.to_le_bytes());
            self.out.write_all(&h).map_err(|e| self.io_err(e))?;
            self.header = true;
        }
        Ok(())
    }

    /// The underlying writer (after [`TraceWriter::finish`]).
    pub fn into_inner(self) -> W {
        self.out
    }
}

impl<W: Write> TraceWriter for NativeWriter<W> {
    fn write(&mut self, r: &Record) -> Result<(), TraceError> {
        self.write_header()?;
        let mut buf = [0u8; MAX_RECORD];
        let mut flags = match r.op {
            Op::Read => 0,
            Op::Write => 1,
            Op::Discard => 2,
            Op::Flush => 3,
        };
        let times = [r.queue_ns, r.issue_ns, r.complete_ns];
        for (bit, t) in [F_Q, F_D, F_C].into_iter().zip(times) {
            if t.is_some() {
                flags |= bit;
            }
        }
        if r.merged {
            flags |= F_MERGED;
        }
        let same = self.count > 0 && r.stream == self.prev.stream;
        if same {
            flags |= F_SAME_STREAM;
        }
        buf[0] = flags;
        let mut n = 1;
        if !same {
            n = put_varint(&mut buf, n, u64::from(r.stream));
        }
        n = put_varint(
            &mut buf,
            n,
            zigzag(r.offset_bytes.wrapping_sub(self.prev.end) as i64),
        );
        n = put_varint(&mut buf, n, u64::from(r.len_bytes));
        let mut last = self.prev.start;
        let mut first = None;
        for t in times.into_iter().flatten() {
            n = put_varint(&mut buf, n, zigzag(t.wrapping_sub(last) as i64));
            last = t;
            first.get_or_insert(t);
        }
        self.out.write_all(&buf[..n]).map_err(|e| self.io_err(e))?;
        self.prev = Prev {
            end: r.offset_bytes.wrapping_add(u64::from(r.len_bytes)),
            start: first.unwrap_or(self.prev.start),
            stream: r.stream,
        };
        self.count += 1;
        Ok(())
    }

    fn finish(&mut self) -> Result<(), TraceError> {
        self.write_header()?;
        let mut buf = [0u8; 11];
        buf[0] = F_TRAILER;
        let n = put_varint(&mut buf, 1, self.count);
        self.out.write_all(&buf[..n]).map_err(|e| self.io_err(e))?;
        self.out.flush().map_err(|e| self.io_err(e))
    }
}

/// Reads the native format.
pub struct NativeReader<R: Read> {
    input: R,
    name: String,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    eof: bool,
    consumed: u64,
    prev: Prev,
    count: u64,
    done: bool,
}

impl NativeReader<File> {
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let f = crate::TRACE_FILE
            .open(path)
            .map_err(|e| TraceError::io(path, e))?;
        NativeReader::new(f, &path.display().to_string())
    }
}

impl<R: Read> NativeReader<R> {
    pub fn new(mut input: R, name: &str) -> Result<Self, TraceError> {
        let mut h = [0u8; HEADER_LEN];
        input.read_exact(&mut h).map_err(|e| TraceError::Binary {
            file: name.into(),
            offset: 0,
            msg: format!("expected a {HEADER_LEN}-byte ssdlab trace header: {e}"),
        })?;
        if &h[..8] != MAGIC {
            return Err(TraceError::Binary {
                file: name.into(),
                offset: 0,
                msg: "expected the ssdlab trace magic \"SSDLTRCE\"".into(),
            });
        }
        let v = u16::from_le_bytes([h[8], h[9]]);
        if v != VERSION {
            return Err(TraceError::Binary {
                file: name.into(),
                offset: 8,
                msg: format!(
                    "expected format version {VERSION}, found {v}; a newer ssdlab wrote it"
                ),
            });
        }
        Ok(NativeReader {
            input,
            name: name.into(),
            buf: vec![0; 1 << 20],
            pos: 0,
            len: 0,
            eof: false,
            consumed: HEADER_LEN as u64,
            prev: Prev::default(),
            count: 0,
            done: false,
        })
    }

    fn bad(&self, msg: String) -> TraceError {
        TraceError::Binary {
            file: self.name.clone(),
            offset: self.consumed + self.pos as u64,
            msg,
        }
    }

    #[inline(always)]
    fn fill(&mut self) -> Result<(), TraceError> {
        if self.eof || self.len - self.pos >= MAX_RECORD {
            return Ok(());
        }
        self.refill()
    }

    #[inline(never)]
    fn refill(&mut self) -> Result<(), TraceError> {
        self.buf.copy_within(self.pos..self.len, 0);
        self.consumed += self.pos as u64;
        self.len -= self.pos;
        self.pos = 0;
        while self.len < self.buf.len() {
            match self.input.read(&mut self.buf[self.len..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.len += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(TraceError::Io {
                        file: self.name.clone(),
                        error: e,
                    })
                }
            }
        }
        Ok(())
    }

    #[inline(always)]
    fn varint(&mut self) -> Result<u64, TraceError> {
        let buf = &self.buf[self.pos..self.len];
        // Fast path: one byte.
        if let Some(&b) = buf.first() {
            if b < 0x80 {
                self.pos += 1;
                return Ok(u64::from(b));
            }
        }
        let mut v: u64 = 0;
        for (i, &b) in buf.iter().take(10).enumerate() {
            if i == 9 && b > 1 {
                return Err(self.bad("varint overflows 64 bits".into()));
            }
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                self.pos += i + 1;
                return Ok(v);
            }
        }
        if buf.len() >= 10 {
            Err(self.bad("varint longer than 10 bytes".into()))
        } else {
            Err(self.bad("file ends inside a record (truncated?)".into()))
        }
    }

    #[inline(always)]
    fn record(&mut self) -> Result<Option<Record>, TraceError> {
        self.fill()?;
        if self.pos >= self.len {
            return Err(self.bad(format!(
                "file ends after {} records without the end marker (truncated?)",
                self.count
            )));
        }
        let flags = self.buf[self.pos];
        self.pos += 1;
        if flags & F_TRAILER != 0 {
            let n = self.varint()?;
            if n != self.count {
                return Err(self.bad(format!("end marker says {n} records, found {}", self.count)));
            }
            if self.pos != self.len || !self.eof {
                self.fill()?;
                if self.pos != self.len {
                    return Err(self.bad("data after the end marker".into()));
                }
            }
            return Ok(None);
        }
        let op = match flags & 3 {
            0 => Op::Read,
            1 => Op::Write,
            2 => Op::Discard,
            _ => Op::Flush,
        };
        let stream = if flags & F_SAME_STREAM != 0 {
            self.prev.stream
        } else {
            u32::try_from(self.varint()?).map_err(|_| self.bad("stream id too large".into()))?
        };
        let offset = self.prev.end.wrapping_add(unzigzag(self.varint()?) as u64);
        let len = u32::try_from(self.varint()?).map_err(|_| self.bad("length too large".into()))?;
        if offset.checked_add(u64::from(len)).is_none() {
            return Err(self.bad(format!(
                "an IO of {len} bytes at offset {offset} ends past 2^64"
            )));
        }
        let mut last = self.prev.start;
        let mut times = [None; 3];
        let mut first = None;
        for (i, bit) in [F_Q, F_D, F_C].into_iter().enumerate() {
            if flags & bit != 0 {
                let t = last.wrapping_add(unzigzag(self.varint()?) as u64);
                times[i] = Some(t);
                last = t;
                first.get_or_insert(t);
            }
        }
        self.prev = Prev {
            end: offset.wrapping_add(u64::from(len)),
            start: first.unwrap_or(self.prev.start),
            stream,
        };
        self.count += 1;
        Ok(Some(Record {
            op,
            offset_bytes: offset,
            len_bytes: len,
            queue_ns: times[0],
            issue_ns: times[1],
            complete_ns: times[2],
            stream,
            merged: flags & F_MERGED != 0,
        }))
    }
}

impl<R: Read> Iterator for NativeReader<R> {
    type Item = Result<Record, TraceError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.record() {
            Ok(Some(r)) => Some(Ok(r)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

impl<R: Read> TraceReader for NativeReader<R> {
    fn skipped(&self) -> u64 {
        0
    }
}
