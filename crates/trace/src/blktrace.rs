//! blktrace's binary output: one file per CPU (`NAME.blktrace.N`), each a sequence of
//! `struct blk_io_trace` (48 bytes) followed by `pdu_len` bytes of payload, in the byte order
//! of the machine that recorded it. Version 7 (`magic == 0x65617407`) is the one the kernel
//! has written since 2.6.x; payloads (process names, remap data, messages) are skipped.
//!
//! The per-CPU files are merged by timestamp (a k-way merge holding one event per file), then
//! paired btt's way by `pairing`. Times are made relative to the earliest event, as
//! blkparse prints them. Notify and pass-through (PC) events are ignored, as btt does.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use crate::blkparse::op_from_rwbs;
use crate::pairing::{Action, Event, Pairer, PairingCounts};
use crate::{Op, Record, TraceError, TraceReader};

pub const MAGIC: u32 = 0x6561_7400;
pub const VERSION: u32 = 0x07;
const HEADER_LEN: usize = 48;

/// blktrace action codes (low 16 bits of `action`).
pub mod ta {
    pub const QUEUE: u32 = 1;
    pub const BACKMERGE: u32 = 2;
    pub const FRONTMERGE: u32 = 3;
    pub const GETRQ: u32 = 4;
    pub const SLEEPRQ: u32 = 5;
    pub const REQUEUE: u32 = 6;
    pub const ISSUE: u32 = 7;
    pub const COMPLETE: u32 = 8;
    pub const PLUG: u32 = 9;
    pub const INSERT: u32 = 12;
    pub const REMAP: u32 = 15;
}

/// blktrace categories (high 16 bits of `action`).
pub mod tc {
    pub const READ: u32 = 1 << 0;
    pub const WRITE: u32 = 1 << 1;
    pub const FLUSH: u32 = 1 << 2;
    pub const SYNC: u32 = 1 << 3;
    pub const QUEUE: u32 = 1 << 4;
    pub const REQUEUE: u32 = 1 << 5;
    pub const ISSUE: u32 = 1 << 6;
    pub const COMPLETE: u32 = 1 << 7;
    pub const FS: u32 = 1 << 8;
    pub const PC: u32 = 1 << 9;
    pub const NOTIFY: u32 = 1 << 10;
    pub const DISCARD: u32 = 1 << 13;
    pub const FUA: u32 = 1 << 15;
}

/// One raw event as blktrace stores it (the fields this crate uses).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawEvent {
    pub sequence: u32,
    pub time_ns: u64,
    pub sector: u64,
    pub bytes: u32,
    pub action: u32,
    pub pid: u32,
    pub device: u32,
    pub cpu: u32,
    pub error: u16,
}

impl RawEvent {
    /// Encode as a version-7 record in the given byte order, followed by `pdu`.
    pub fn encode(&self, big_endian: bool, pdu: &[u8], out: &mut Vec<u8>) {
        fn put32(out: &mut Vec<u8>, v: u32, be: bool) {
            out.extend_from_slice(&if be { v.to_be_bytes() } else { v.to_le_bytes() });
        }
        fn put64(out: &mut Vec<u8>, v: u64, be: bool) {
            out.extend_from_slice(&if be { v.to_be_bytes() } else { v.to_le_bytes() });
        }
        let be = big_endian;
        put32(out, MAGIC | VERSION, be);
        put32(out, self.sequence, be);
        put64(out, self.time_ns, be);
        put64(out, self.sector, be);
        put32(out, self.bytes, be);
        put32(out, self.action, be);
        put32(out, self.pid, be);
        put32(out, self.device, be);
        put32(out, self.cpu, be);
        let e = if be {
            self.error.to_be_bytes()
        } else {
            self.error.to_le_bytes()
        };
        out.extend_from_slice(&e);
        let n = pdu.len() as u16;
        out.extend_from_slice(&if be { n.to_be_bytes() } else { n.to_le_bytes() });
        out.extend_from_slice(pdu);
    }
}

struct CpuFile<R = File> {
    name: String,
    input: BufReader<R>,
    offset: u64,
    big_endian: Option<bool>,
    pdu: Vec<u8>,
}

impl<R: Read> CpuFile<R> {
    fn next_event(&mut self) -> Result<Option<RawEvent>, TraceError> {
        let mut h = [0u8; HEADER_LEN];
        let mut got = 0;
        while got < HEADER_LEN {
            match self.input.read(&mut h[got..]) {
                Ok(0) if got == 0 => return Ok(None),
                Ok(0) => {
                    return Err(self.bad(format!(
                        "file ends inside a record header ({got} of {HEADER_LEN} bytes)"
                    )))
                }
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    return Err(TraceError::Io {
                        file: self.name.clone(),
                        error: e,
                    })
                }
            }
        }
        let le = u32::from_le_bytes(h[0..4].try_into().unwrap());
        let be = u32::from_be_bytes(h[0..4].try_into().unwrap());
        let big = if le & 0xffff_ff00 == MAGIC {
            false
        } else if be & 0xffff_ff00 == MAGIC {
            true
        } else {
            return Err(self.bad(format!(
                "expected the blktrace magic 0x65617400 in either byte order, found 0x{le:08x}"
            )));
        };
        if *self.big_endian.get_or_insert(big) != big {
            return Err(self.bad("byte order changes inside the file".into()));
        }
        let magic = if big { be } else { le };
        if magic & 0xff != VERSION {
            return Err(self.bad(format!(
                "expected blktrace record version 7, found {}",
                magic & 0xff
            )));
        }
        let u32_at = |o: usize| {
            let b: [u8; 4] = h[o..o + 4].try_into().unwrap();
            if big {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        };
        let u64_at = |o: usize| {
            let b: [u8; 8] = h[o..o + 8].try_into().unwrap();
            if big {
                u64::from_be_bytes(b)
            } else {
                u64::from_le_bytes(b)
            }
        };
        let u16_at = |o: usize| {
            let b: [u8; 2] = h[o..o + 2].try_into().unwrap();
            if big {
                u16::from_be_bytes(b)
            } else {
                u16::from_le_bytes(b)
            }
        };
        let ev = RawEvent {
            sequence: u32_at(4),
            time_ns: u64_at(8),
            sector: u64_at(16),
            bytes: u32_at(24),
            action: u32_at(28),
            pid: u32_at(32),
            device: u32_at(36),
            cpu: u32_at(40),
            error: u16_at(44),
        };
        if ev.sector > crate::record::MAX_SECTOR {
            return Err(self.bad(format!("sector {} is beyond any device", ev.sector)));
        }
        let pdu_len = usize::from(u16_at(46));
        self.pdu.resize(pdu_len, 0);
        self.input.read_exact(&mut self.pdu).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                self.bad(format!("file ends inside a {pdu_len}-byte payload"))
            } else {
                TraceError::Io {
                    file: self.name.clone(),
                    error: e,
                }
            }
        })?;
        self.offset += (HEADER_LEN + pdu_len) as u64;
        Ok(Some(ev))
    }

    fn bad(&self, msg: String) -> TraceError {
        TraceError::Binary {
            file: self.name.clone(),
            offset: self.offset,
            msg,
        }
    }
}

/// Split blktrace's piped output (`blktrace -o -`: every CPU's events in one stream, as they
/// are read) into the per-CPU files `DIR/NAME.blktrace.N` its file output would have written,
/// calling `on_event` after each event is written. Returns the number of events.
pub fn split_by_cpu(
    stream: impl Read,
    dir: &Path,
    name: &str,
    mut on_event: impl FnMut(),
) -> Result<u64, TraceError> {
    use std::collections::hash_map::{Entry, HashMap};
    use std::io::Write;
    let mut input = CpuFile {
        name: "blktrace's output".into(),
        // A read of a pipe returns what is there: buffering delays no event.
        input: BufReader::with_capacity(1 << 16, stream),
        offset: 0,
        big_endian: None,
        pdu: Vec::new(),
    };
    let cpu_path = |cpu: u32| dir.join(format!("{name}.blktrace.{cpu}"));
    let mut files: HashMap<u32, std::io::BufWriter<File>> = HashMap::new();
    let mut event = Vec::new();
    let mut n = 0;
    while let Some(ev) = input.next_event()? {
        let out = match files.entry(ev.cpu) {
            Entry::Occupied(f) => f.into_mut(),
            Entry::Vacant(v) => {
                let path = cpu_path(ev.cpu);
                let f = File::create(&path).map_err(|e| TraceError::io(&path, e))?;
                v.insert(std::io::BufWriter::new(f))
            }
        };
        event.clear();
        ev.encode(input.big_endian == Some(true), &input.pdu, &mut event);
        out.write_all(&event)
            .map_err(|e| TraceError::io(&cpu_path(ev.cpu), e))?;
        n += 1;
        on_event();
    }
    for (cpu, mut out) in files {
        out.flush().map_err(|e| TraceError::io(&cpu_path(cpu), e))?;
    }
    Ok(n)
}

/// The per-CPU files that belong with `path`: `NAME.blktrace.N` siblings when `path` is one of
/// them or is `NAME` itself; otherwise just `path` (e.g. a `blkparse -d` dump).
pub fn cpu_files(path: &Path) -> Result<Vec<PathBuf>, TraceError> {
    let fname = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let base = match fname.rfind(".blktrace.") {
        Some(i) => fname[..i].to_string(),
        None if !path.exists() => fname.clone(),
        None => return Ok(vec![path.to_path_buf()]),
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let prefix = format!("{base}.blktrace.");
    let mut files: Vec<(u32, PathBuf)> = Vec::new();
    for e in std::fs::read_dir(&dir).map_err(|e| TraceError::io(&dir, e))? {
        let e = e.map_err(|e| TraceError::io(&dir, e))?;
        let n = e.file_name().to_string_lossy().into_owned();
        if let Some(cpu) = n.strip_prefix(&prefix).and_then(|c| c.parse::<u32>().ok()) {
            files.push((cpu, e.path()));
        }
    }
    if files.is_empty() {
        return Err(TraceError::Format(format!(
            "{}: no blktrace per-CPU files {prefix}N found in {}",
            path.display(),
            dir.display()
        )));
    }
    files.sort();
    Ok(files.into_iter().map(|(_, p)| p).collect())
}

/// Reads blktrace per-CPU files merged by time.
pub struct BlktraceReader {
    files: Vec<CpuFile>,
    heads: Vec<Option<RawEvent>>,
    heap: BinaryHeap<Reverse<(u64, u32, usize)>>,
    genesis: Option<u64>,
    pairer: Pairer,
    out: VecDeque<Record>,
    failed: bool,
    finished: bool,
}

impl BlktraceReader {
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        let mut files = Vec::new();
        for p in cpu_files(path)? {
            let f = crate::TRACE_FILE
                .open(&p)
                .map_err(|e| TraceError::io(&p, e))?;
            files.push(CpuFile {
                name: p.display().to_string(),
                input: BufReader::with_capacity(1 << 16, f),
                offset: 0,
                big_endian: None,
                pdu: Vec::new(),
            });
        }
        let mut r = BlktraceReader {
            heads: vec![None; files.len()],
            files,
            heap: BinaryHeap::new(),
            genesis: None,
            pairer: Pairer::new(),
            out: VecDeque::new(),
            failed: false,
            finished: false,
        };
        for i in 0..r.files.len() {
            r.refill(i)?;
        }
        r.genesis = r.heap.peek().map(|Reverse((t, _, _))| *t);
        Ok(r)
    }

    /// Counters from pairing events into IOs (orphan completions, reissues, incomplete IOs).
    pub fn pairing_counts(&self) -> PairingCounts {
        self.pairer.counts
    }

    fn refill(&mut self, i: usize) -> Result<(), TraceError> {
        let ev = self.files[i].next_event()?;
        if let Some(e) = ev {
            self.heap.push(Reverse((e.time_ns, e.sequence, i)));
        }
        self.heads[i] = ev;
        Ok(())
    }

    fn step(&mut self) -> Result<bool, TraceError> {
        let Some(Reverse((_, _, i))) = self.heap.pop() else {
            return Ok(false);
        };
        let ev = self.heads[i].take().expect("heap entry has an event");
        self.refill(i)?;
        let cat = ev.action >> 16;
        if cat & (tc::NOTIFY | tc::PC) != 0 {
            return Ok(true);
        }
        let action = match ev.action & 0xffff {
            ta::QUEUE => Action::Queue,
            ta::BACKMERGE | ta::FRONTMERGE => Action::Merge,
            ta::ISSUE => Action::Issue,
            ta::COMPLETE => Action::Complete,
            ta::REQUEUE => Action::Requeue,
            _ => Action::Other,
        };
        let op = op_of(cat, ev.bytes);
        let t = ev.time_ns.saturating_sub(self.genesis.unwrap_or(0));
        self.pairer.event(
            Event {
                dev: ev.device,
                action,
                op,
                sector: ev.sector,
                bytes: ev.bytes,
                time_ns: t,
            },
            &mut self.out,
        );
        Ok(true)
    }
}

/// The op of an event from its category bits, as blkparse's rwbs would spell it.
fn op_of(cat: u32, bytes: u32) -> Option<Op> {
    let mut rwbs = [0u8; 2];
    let mut n = 0;
    if cat & tc::FLUSH != 0 {
        rwbs[n] = b'F';
        n += 1;
    }
    rwbs[n] = if cat & tc::DISCARD != 0 {
        b'D'
    } else if cat & tc::WRITE != 0 {
        b'W'
    } else if bytes > 0 {
        b'R'
    } else {
        b'N'
    };
    n += 1;
    op_from_rwbs(&rwbs[..n], bytes)
}

impl Iterator for BlktraceReader {
    type Item = Result<Record, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(r) = self.out.pop_front() {
                return Some(Ok(r));
            }
            if self.failed || self.finished {
                return None;
            }
            match self.step() {
                Ok(true) => {}
                Ok(false) => {
                    self.finished = true;
                    self.pairer.finish(&mut self.out);
                }
                Err(e) => {
                    self.failed = true;
                    return Some(Err(e));
                }
            }
        }
    }
}

impl TraceReader for BlktraceReader {
    fn skipped(&self) -> u64 {
        0
    }
}
