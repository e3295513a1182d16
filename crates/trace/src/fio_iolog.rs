//! fio iolog, versions 2 and 3 (`read_iolog=` / `write_iolog=`).
//!
//! Version 2: a header `fio version 2 iolog`, then `filename action [offset length]` lines.
//! Version 3 adds a leading timestamp in microseconds since the start of the run (fio's
//! `log_io_u` writes `utime_since_now`):
//! `timestamp filename action [offset length]`. Actions `add`, `open` and `close` manage
//! files; `read`, `write`, `trim`, `sync` and `datasync` are IOs. Each distinct file name
//! becomes a stream, numbered in order of appearance. Version 2 has no times.

use std::collections::{HashMap, VecDeque};
use std::io::Write;

use crate::text::{
    field, is_blank_or_comment, show, u32_len, uint, ws_fields, BadLine, LineParser,
};
use crate::{Op, Record, TraceError};

pub(crate) const HEADER_V2: &str = "fio version 2 iolog";
pub(crate) const HEADER_V3: &str = "fio version 3 iolog";

#[derive(Default)]
pub(crate) struct Parser {
    version: Option<u8>,
    files: HashMap<Vec<u8>, u32>,
}

impl LineParser for Parser {
    fn parse(&mut self, line: &[u8], out: &mut VecDeque<Record>) -> Result<(), BadLine> {
        let Some(version) = self.version else {
            let t = crate::text::trim(line);
            self.version = match t {
                _ if t == HEADER_V2.as_bytes() => Some(2),
                _ if t == HEADER_V3.as_bytes() => Some(3),
                _ => {
                    return Err(format!(
                        "expected the header \"{HEADER_V2}\" or \"{HEADER_V3}\", found {}",
                        show(t)
                    )
                    .into())
                }
            };
            return Ok(());
        };
        if is_blank_or_comment(line) {
            return Ok(());
        }
        let mut f = ws_fields(line);
        let t_ns = if version == 3 {
            let us = uint(field(&mut f, "timestamp (us)")?, "timestamp (us)")?;
            Some(us.checked_mul(1_000).ok_or("timestamp too large")?)
        } else {
            None
        };
        let name = field(&mut f, "file name")?;
        let action = field(&mut f, "action")?;
        let op = match action {
            b"add" | b"open" | b"close" => {
                let n = self.files.len() as u32;
                self.files.entry(name.to_vec()).or_insert(n);
                return Ok(());
            }
            b"read" => Op::Read,
            b"write" => Op::Write,
            b"trim" => Op::Discard,
            b"sync" | b"datasync" => Op::Flush,
            _ => {
                return Err(format!(
                    "expected action add/open/close/read/write/trim/sync/datasync, found {}",
                    show(action)
                )
                .into())
            }
        };
        let (offset, len) = if op == Op::Flush {
            (0, 0)
        } else {
            let o = uint(field(&mut f, "offset")?, "offset (bytes)")?;
            let l = uint(field(&mut f, "length")?, "length (bytes)")?;
            (o, u32_len(l, "length")?)
        };
        let stream = match self.files.get(name) {
            Some(&s) => s,
            None => {
                let n = self.files.len() as u32;
                self.files.insert(name.to_vec(), n);
                n
            }
        };
        let mut r = Record::new(op, offset, len, t_ns);
        r.stream = stream;
        out.push_back(r);
        Ok(())
    }
}

/// Writes fio iolog version 3. Stream `n` becomes file `{prefix}{n}` unless one target file
/// is given (then every stream goes to it). Times are whole microseconds from the first
/// record (fio's resolution), taken from each record's start time.
pub struct FioIologWriter<W: Write> {
    out: W,
    target: Option<String>,
    prefix: String,
    opened: Vec<u32>,
    t0: Option<u64>,
    last_us: u64,
    header: bool,
}

impl<W: Write> FioIologWriter<W> {
    /// `target`: write every IO against this one file (e.g. `/dev/nvme0n1`); `None` names
    /// files `stream0`, `stream1`, ...
    pub fn new(out: W, target: Option<String>) -> Self {
        FioIologWriter {
            out,
            target,
            prefix: "stream".into(),
            opened: Vec::new(),
            t0: None,
            last_us: 0,
            header: false,
        }
    }

    fn name(&self, stream: u32) -> String {
        match &self.target {
            Some(t) => t.clone(),
            None => format!("{}{}", self.prefix, stream),
        }
    }

    fn io(&mut self, r: &Record) -> std::io::Result<()> {
        if !self.header {
            writeln!(self.out, "{HEADER_V3}")?;
            self.header = true;
        }
        let key = if self.target.is_some() { 0 } else { r.stream };
        let start = r.start_ns().unwrap_or(0);
        let t0 = *self.t0.get_or_insert(start);
        let us = (start.saturating_sub(t0) / 1_000).max(self.last_us);
        self.last_us = us;
        if !self.opened.contains(&key) {
            let name = self.name(key);
            writeln!(self.out, "{us} {name} add")?;
            writeln!(self.out, "{us} {name} open")?;
            self.opened.push(key);
        }
        let name = self.name(key);
        match r.op {
            Op::Flush => writeln!(self.out, "{us} {name} sync"),
            op => {
                let a = match op {
                    Op::Read => "read",
                    Op::Write => "write",
                    _ => "trim",
                };
                writeln!(
                    self.out,
                    "{us} {name} {a} {} {}",
                    r.offset_bytes, r.len_bytes
                )
            }
        }
    }
}

impl<W: Write> crate::TraceWriter for FioIologWriter<W> {
    fn write(&mut self, r: &Record) -> Result<(), TraceError> {
        self.io(r).map_err(|e| TraceError::Io {
            file: "fio iolog output".into(),
            error: e,
        })
    }

    fn finish(&mut self) -> Result<(), TraceError> {
        let res = (|| {
            if !self.header {
                writeln!(self.out, "{HEADER_V3}")?;
                self.header = true;
            }
            let opened = std::mem::take(&mut self.opened);
            for k in opened {
                writeln!(self.out, "{} {} close", self.last_us, self.name(k))?;
            }
            self.out.flush()
        })();
        res.map_err(|e| TraceError::Io {
            file: "fio iolog output".into(),
            error: e,
        })
    }
}
