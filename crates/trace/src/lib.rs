//! ssdlab's traces: the record model, readers and writers for every common block-trace
//! format, statistics that match blktrace's btt, and synthetic look-alikes of the Storage
//! Bench traces.
//!
//! - [`Record`]: one IO, in bytes and nanoseconds.
//! - [`open`] / [`open_with`]: a streaming reader for any [`Format`] (detected or named).
//! - [`create_writer`]: native, fio iolog v3 or DiskSim ASCII output; [`convert`] glues both.
//! - [`stats`]: one streaming pass computing the Storage Bench and btt figures.
//! - [`synth`]: `heavy-2011`, `light-2011`, `destroyer-2013` generators.
//!
//! Formats, one file each: `blkparse`, [`blktrace`], `fio_iolog`, `msr`, `umass`,
//! `disksim`, `alibaba`, `tencent`, [`native`]; [`detect`] guesses which.

mod alibaba;
mod blkparse;
pub mod blktrace;
pub mod capture;
mod chunks;
pub mod detect;
mod disksim;
mod error;
mod fio_iolog;
mod msr;
pub mod native;
mod pairing;
mod record;
pub mod stats;
pub mod synth;
mod tencent;
mod text;
mod umass;

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::Path;

pub use error::TraceError;
pub use pairing::PairingCounts;
pub use record::{Op, Record};
pub use stats::{Stats, StatsBuilder};

/// A streaming trace reader: records in trace order, memory independent of trace length.
pub trait TraceReader: Iterator<Item = Result<Record, TraceError>> {
    /// Lines skipped as malformed (with [`ReadOptions::skip_bad`]).
    fn skipped(&self) -> u64;
}

/// A trace writer. Call [`TraceWriter::finish`] after the last record.
pub trait TraceWriter {
    fn write(&mut self, r: &Record) -> Result<(), TraceError>;
    fn finish(&mut self) -> Result<(), TraceError>;
}

impl<W: TraceWriter + ?Sized> TraceWriter for Box<W> {
    fn write(&mut self, r: &Record) -> Result<(), TraceError> {
        (**self).write(r)
    }
    fn finish(&mut self) -> Result<(), TraceError> {
        (**self).finish()
    }
}

/// Every format this crate reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// blkparse default text output.
    Blkparse,
    /// blktrace binary per-CPU files.
    Blktrace,
    /// fio iolog v2 or v3.
    FioIolog,
    /// SNIA MSR Cambridge CSV.
    Msr,
    /// UMass / SPC ASCII (Financial, WebSearch).
    Umass,
    /// DiskSim / MQSim ASCII.
    DiskSim,
    /// Alibaba 2020 block CSV.
    Alibaba,
    /// Tencent CBS CSV.
    Tencent,
    /// ssdlab's native binary format.
    Native,
}

impl Format {
    pub const NAMES: [&'static str; 9] = [
        "blkparse",
        "blktrace",
        "fio-iolog",
        "msr",
        "umass",
        "disksim",
        "alibaba",
        "tencent",
        "native",
    ];
    pub const ALL: [Format; 9] = [
        Format::Blkparse,
        Format::Blktrace,
        Format::FioIolog,
        Format::Msr,
        Format::Umass,
        Format::DiskSim,
        Format::Alibaba,
        Format::Tencent,
        Format::Native,
    ];

    pub fn name(self) -> &'static str {
        Self::NAMES[Self::ALL.iter().position(|&f| f == self).expect("listed")]
    }

    /// Formats this crate can write.
    pub fn writable(self) -> bool {
        matches!(self, Format::Native | Format::FioIolog | Format::DiskSim)
    }

    /// Whether the format records when IOs completed (blktrace's C events, MSR's response
    /// time, native's completion time): without them a trace has no queue depth, QD1 share,
    /// busy time or D2C.
    pub fn records_completions(self) -> bool {
        matches!(
            self,
            Format::Blkparse | Format::Blktrace | Format::Msr | Format::Native
        )
    }
}

impl std::str::FromStr for Format {
    type Err = TraceError;
    fn from_str(s: &str) -> Result<Self, TraceError> {
        let s = s.to_ascii_lowercase();
        let alias = match s.as_str() {
            "fio" | "iolog" => "fio-iolog",
            "mqsim" | "ascii" => "disksim",
            "spc" => "umass",
            "ssdlab" => "native",
            x => x,
        };
        Format::NAMES
            .iter()
            .position(|n| *n == alias)
            .map(|i| Format::ALL[i])
            .ok_or_else(|| {
                TraceError::Format(format!(
                    "unknown trace format {s:?}; expected one of: {}",
                    Format::NAMES.join(", ")
                ))
            })
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How to read a trace.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReadOptions {
    /// The format; `None` detects it.
    pub format: Option<Format>,
    /// Count and skip malformed lines instead of stopping at the first.
    pub skip_bad: bool,
}

/// A trace file: a regular file only (a FIFO would block its open, /dev/zero never end), of
/// any length.
pub(crate) const TRACE_FILE: engine::regular_file::RegularFile =
    engine::regular_file::RegularFile::new("a trace", u64::MAX);

/// Open a trace, detecting its format.
pub fn open(path: &Path) -> Result<Box<dyn TraceReader>, TraceError> {
    open_with(path, ReadOptions::default())
}

/// Open a trace with options. `-` reads standard input (text formats and native only; the
/// format must then be given).
pub fn open_with(path: &Path, opts: ReadOptions) -> Result<Box<dyn TraceReader>, TraceError> {
    let format = match opts.format {
        Some(f) => f,
        None => detect::detect(path)?,
    };
    let name = path.display().to_string();
    if format == Format::Blktrace {
        return Ok(Box::new(blktrace::BlktraceReader::open(path)?));
    }
    let file = TRACE_FILE.open(path).map_err(|e| TraceError::io(path, e))?;
    let input = BufReader::with_capacity(1 << 18, file);
    let sb = opts.skip_bad;
    Ok(match format {
        Format::Native => Box::new(native::NativeReader::new(input, &name)?),
        // Large reads pass BufReader's buffer by.
        Format::Blkparse => Box::new(blkparse::Reader::new(input, &name, sb)),
        Format::FioIolog => Box::new(text::TextReader::new(
            input,
            fio_iolog::Parser::default(),
            &name,
            sb,
        )),
        Format::Msr => Box::new(text::TextReader::new(
            input,
            msr::Parser::default(),
            &name,
            sb,
        )),
        Format::Umass => Box::new(text::TextReader::new(input, umass::Parser, &name, sb)),
        Format::DiskSim => Box::new(text::TextReader::new(input, disksim::Parser, &name, sb)),
        Format::Alibaba => Box::new(text::TextReader::new(input, alibaba::Parser, &name, sb)),
        Format::Tencent => Box::new(text::TextReader::new(input, tencent::Parser, &name, sb)),
        Format::Blktrace => unreachable!("handled above"),
    })
}

/// Read a text or native trace from any reader (tests, standard input).
pub fn reader_from<R: std::io::Read + 'static>(
    input: R,
    name: &str,
    opts: ReadOptions,
) -> Result<Box<dyn TraceReader>, TraceError> {
    let format = opts.format.ok_or_else(|| {
        TraceError::Format(format!(
            "{name}: the format must be named when reading a stream"
        ))
    })?;
    let input = BufReader::with_capacity(1 << 18, input);
    let sb = opts.skip_bad;
    Ok(match format {
        Format::Native => Box::new(native::NativeReader::new(input, name)?),
        Format::Blkparse => Box::new(blkparse::Reader::new(input, name, sb)),
        Format::FioIolog => Box::new(text::TextReader::new(
            input,
            fio_iolog::Parser::default(),
            name,
            sb,
        )),
        Format::Msr => Box::new(text::TextReader::new(
            input,
            msr::Parser::default(),
            name,
            sb,
        )),
        Format::Umass => Box::new(text::TextReader::new(input, umass::Parser, name, sb)),
        Format::DiskSim => Box::new(text::TextReader::new(input, disksim::Parser, name, sb)),
        Format::Alibaba => Box::new(text::TextReader::new(input, alibaba::Parser, name, sb)),
        Format::Tencent => Box::new(text::TextReader::new(input, tencent::Parser, name, sb)),
        Format::Blktrace => {
            return Err(TraceError::Format(format!(
                "{name}: blktrace per-CPU files must be read from disk"
            )))
        }
    })
}

/// A writer for `format` into any `Write`.
pub fn writer_for<W: Write + 'static>(
    out: W,
    format: Format,
) -> Result<Box<dyn TraceWriter>, TraceError> {
    Ok(match format {
        Format::Native => Box::new(native::NativeWriter::new(out)),
        Format::FioIolog => Box::new(fio_iolog::FioIologWriter::new(out, None)),
        Format::DiskSim => Box::new(disksim::DiskSimWriter::new(out)),
        f => {
            return Err(TraceError::Format(format!(
                "ssdlab cannot write {f}; it writes native, fio-iolog and disksim"
            )))
        }
    })
}

/// Create `path` and a writer for `format` on it.
pub fn create_writer(path: &Path, format: Format) -> Result<Box<dyn TraceWriter>, TraceError> {
    if !format.writable() {
        return writer_for(std::io::sink(), format);
    }
    TRACE_FILE
        .check_output(path)
        .map_err(|e| TraceError::io(path, e))?;
    let f = File::create(path).map_err(|e| TraceError::io(path, e))?;
    writer_for(BufWriter::with_capacity(1 << 18, f), format)
}

/// The output format a file name suggests: `.fio`/`.iolog` fio, `.trace`/`.ascii`/`.disksim`
/// DiskSim, anything else native.
pub fn format_for_output(path: &Path) -> Format {
    match path.extension().and_then(|e| e.to_str()) {
        Some("fio" | "iolog" | "log") => Format::FioIolog,
        Some("trace" | "ascii" | "disksim" | "mqsim") => Format::DiskSim,
        _ => Format::Native,
    }
}

/// What a conversion did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ConvertSummary {
    pub records: u64,
    /// Malformed input lines skipped (`skip_bad`).
    pub skipped: u64,
}

/// Stream every record of `input` into `out`.
pub fn convert(
    input: &Path,
    opts: ReadOptions,
    out: &Path,
    out_format: Format,
) -> Result<ConvertSummary, TraceError> {
    let mut reader = open_with(input, opts)?;
    let mut writer = create_writer(out, out_format)?;
    let mut n = 0;
    for r in reader.by_ref() {
        writer.write(&r?)?;
        n += 1;
    }
    writer.finish()?;
    Ok(ConvertSummary {
        records: n,
        skipped: reader.skipped(),
    })
}
