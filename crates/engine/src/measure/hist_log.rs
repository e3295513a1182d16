//! fio's histogram log (`write_hist_log` with `log_hist_msec=1000`): for each second and
//! direction, a line `msec, direction, block size, bin 0, ..., bin 1855` of that second's
//! latency bucket counts, so fio's `fiologparser_hist.py` and fio-plot read ssdlab's runs.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::PLAT_NR;

/// A histogram log: a regular file, or none yet (a FIFO would block its open).
pub const HIST_LOG_FILE: crate::regular_file::RegularFile =
    crate::regular_file::RegularFile::new("a histogram log", u64::MAX);

/// One second's bucket counts of one direction, kept sparse until written.
#[derive(Clone, Debug, PartialEq)]
pub struct HistLine {
    /// The second's end, in ms since the run's start (fio stamps a line at its interval's end).
    pub end_ms: u64,
    /// fio's direction numbers: 0 read, 1 write.
    pub direction: u8,
    pub buckets: Vec<(u16, u64)>,
}

impl HistLine {
    pub(crate) fn of(end_ms: u64, direction: u8, counts: &[u64; PLAT_NR]) -> HistLine {
        let buckets = counts
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c > 0)
            .map(|(i, &c)| (i as u16, c))
            .collect();
        HistLine {
            end_ms,
            direction,
            buckets,
        }
    }
}

/// A histogram log being written. A failed write ends the log, not the run: the first
/// failure is kept for [`HistLogWriter::finish`] to report.
pub struct HistLogWriter {
    out: BufWriter<File>,
    block_bytes: u32,
    failed: Option<io::Error>,
}

impl HistLogWriter {
    /// `block_bytes` fills fio's block-size column.
    pub fn create(path: &Path, block_bytes: u32) -> io::Result<HistLogWriter> {
        Ok(HistLogWriter {
            out: BufWriter::new({
                HIST_LOG_FILE.check_output(path)?;
                File::create(path)?
            }),
            block_bytes,
            failed: None,
        })
    }

    pub fn write(&mut self, line: &HistLine) {
        if self.failed.is_none() {
            self.failed = self.write_line(line).err();
        }
    }

    fn write_line(&mut self, line: &HistLine) -> io::Result<()> {
        write!(
            self.out,
            "{}, {}, {}",
            line.end_ms, line.direction, self.block_bytes
        )?;
        let mut next = 0usize;
        for &(i, c) in &line.buckets {
            for _ in next..i as usize {
                self.out.write_all(b", 0")?;
            }
            write!(self.out, ", {c}")?;
            next = i as usize + 1;
        }
        for _ in next..PLAT_NR {
            self.out.write_all(b", 0")?;
        }
        self.out.write_all(b"\n")
    }

    /// Flush the log; the first failure writing it, if any.
    pub fn finish(mut self) -> io::Result<()> {
        match self.failed.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        }
    }
}

/// A hist log line that is not fio's layout.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("hist log line {line}: not `msec, direction, bs, {PLAT_NR} bins`")]
pub struct BadHistLine {
    /// From 1.
    pub line: usize,
}

/// Read a hist log's lines (fio's or ssdlab's) as (msec, direction, bucket counts).
pub fn read(text: &str) -> Result<Vec<(u64, u8, Vec<u64>)>, BadHistLine> {
    text.lines()
        .enumerate()
        .map(|(n, line)| {
            let bad = || BadHistLine { line: n + 1 };
            let fields: Vec<u64> = line
                .split(',')
                .map(|f| f.trim().parse().map_err(|_| bad()))
                .collect::<Result<_, _>>()?;
            if fields.len() != 3 + PLAT_NR {
                return Err(bad());
            }
            Ok((fields[0], fields[1] as u8, fields[3..].to_vec()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::LatencyWindow;

    #[test]
    fn a_line_reads_back_as_its_window() {
        let mut w = LatencyWindow::default();
        for ns in [90, 5_000, 5_001, 80_000, 2_000_000_000] {
            w.record(ns);
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.log");
        let mut log = HistLogWriter::create(&path, 4096).unwrap();
        log.write(&HistLine::of(3000, 1, w.counts()));
        log.finish().unwrap();
        let lines = read(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(lines.len(), 1);
        let (ms, dir, counts) = &lines[0];
        assert_eq!((*ms, *dir), (3000, 1));
        assert_eq!(counts.as_slice(), w.counts().as_slice());
    }
}
