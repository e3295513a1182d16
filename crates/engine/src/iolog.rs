//! The optional per-IO log: one fixed 32-byte little-endian record per completed IO after an
//! 8-byte magic, so a 2000 s run at 100K IOPS is 6.4 GB rather than tens of GB of text.
//! `to_csv` exports it.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

use crate::device::Op;

const MAGIC: &[u8; 8] = b"SSDLIOG1";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoRecord {
    pub offset: u64,
    pub len: u32,
    pub op: Op,
    pub submit_ns: u64,
    pub complete_ns: u64,
}

fn op_code(op: Op) -> u8 {
    match op {
        Op::Read => 0,
        Op::Write => 1,
        Op::Discard => 2,
        Op::Flush => 3,
    }
}

fn op_from(code: u8) -> Option<Op> {
    Some(match code {
        0 => Op::Read,
        1 => Op::Write,
        2 => Op::Discard,
        3 => Op::Flush,
        _ => return None,
    })
}

/// A per-IO log: a regular file only, read or written (a FIFO would block its open).
pub const IOLOG_FILE: crate::regular_file::RegularFile =
    crate::regular_file::RegularFile::new("a per-IO log", u64::MAX);

/// A per-IO log being written. A write that fails ends the log, not the run: the first
/// failure is kept for [`IoLogWriter::finish`] to report, and the rest of the run unlogged.
pub struct IoLogWriter {
    out: BufWriter<File>,
    failed: Option<io::Error>,
}

impl IoLogWriter {
    pub fn create(path: &Path) -> io::Result<IoLogWriter> {
        IOLOG_FILE.check_output(path)?;
        let mut out = BufWriter::with_capacity(1 << 20, File::create(path)?);
        out.write_all(MAGIC)?;
        Ok(IoLogWriter { out, failed: None })
    }

    #[inline]
    pub fn record(&mut self, r: &IoRecord) {
        if self.failed.is_some() {
            return;
        }
        let mut b = [0u8; 32];
        b[0..8].copy_from_slice(&r.offset.to_le_bytes());
        b[8..16].copy_from_slice(&r.submit_ns.to_le_bytes());
        b[16..24].copy_from_slice(&r.complete_ns.to_le_bytes());
        b[24..28].copy_from_slice(&r.len.to_le_bytes());
        b[28] = op_code(r.op);
        self.failed = self.out.write_all(&b).err();
    }

    /// Flush the log; the first failure writing it, if any.
    pub fn finish(mut self) -> io::Result<()> {
        match self.failed.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        }
    }
}

/// Read a per-IO log back, record by record.
pub fn read(path: &Path) -> io::Result<impl Iterator<Item = io::Result<IoRecord>>> {
    let mut input = BufReader::with_capacity(1 << 20, IOLOG_FILE.open(path)?);
    let mut magic = [0u8; 8];
    input.read_exact(&mut magic)?;
    if &magic != MAGIC {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not an ssdlab per-IO log (bad magic)", path.display()),
        ));
    }
    let mut index = 0u64;
    Ok(std::iter::from_fn(move || {
        let mut b = [0u8; 32];
        match input.read_exact(&mut b) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return None,
            Err(e) => return Some(Err(e)),
        }
        index += 1;
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
        let Some(op) = op_from(b[28]) else {
            return Some(Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("record {index}: unknown op code {}", b[28]),
            )));
        };
        Some(Ok(IoRecord {
            offset: u64_at(0),
            submit_ns: u64_at(8),
            complete_ns: u64_at(16),
            len: u32::from_le_bytes(b[24..28].try_into().unwrap()),
            op,
        }))
    }))
}

/// Export a per-IO log as CSV: offset,len,op,submit_ns,complete_ns,latency_ns.
pub fn to_csv(log: &Path, out: &mut dyn Write) -> io::Result<u64> {
    writeln!(out, "offset,len,op,submit_ns,complete_ns,latency_ns")?;
    let mut n = 0;
    for r in read(log)? {
        let r = r?;
        writeln!(
            out,
            "{},{},{},{},{},{}",
            r.offset,
            r.len,
            r.op.name(),
            r.submit_ns,
            r.complete_ns,
            r.complete_ns - r.submit_ns
        )?;
        n += 1;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_csv() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log.bin");
        let recs = [
            IoRecord {
                offset: 4096,
                len: 4096,
                op: Op::Write,
                submit_ns: 10,
                complete_ns: 30,
            },
            IoRecord {
                offset: 1 << 40,
                len: 1 << 20,
                op: Op::Discard,
                submit_ns: 40,
                complete_ns: 90,
            },
        ];
        let mut w = IoLogWriter::create(&path).unwrap();
        for r in &recs {
            w.record(r);
        }
        w.finish().unwrap();
        let back: Vec<IoRecord> = read(&path).unwrap().map(Result::unwrap).collect();
        assert_eq!(back, recs);
        let mut csv = Vec::new();
        assert_eq!(to_csv(&path, &mut csv).unwrap(), 2);
        let csv = String::from_utf8(csv).unwrap();
        assert!(csv.contains("4096,4096,write,10,30,20"));
        assert!(csv.contains("discard,40,90,50"));
    }

    #[test]
    fn rejects_other_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x");
        std::fs::write(&path, b"not a log at all").unwrap();
        assert!(read(&path).err().unwrap().to_string().contains("bad magic"));
    }
}
