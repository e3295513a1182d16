//! The Bench written out for other tools (`ssdlab bench export`): one exporter per format,
//! each in its own file, behind one small trait.

mod csv;
mod json;

use std::io::Write;
use std::str::FromStr;

use crate::db::{Bench, BenchError, RunRow};

/// The formats the Bench exports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Everything: the runs' drives, the runs, their results whole.
    Json,
    /// A row per result: its headline figures.
    Csv,
}

impl Format {
    pub const ALL: [Format; 2] = [Format::Json, Format::Csv];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Csv => "csv",
        }
    }

    fn exporter(self) -> Box<dyn Exporter> {
        match self {
            Format::Json => Box::new(json::JsonExporter),
            Format::Csv => Box::new(csv::CsvExporter),
        }
    }
}

impl FromStr for Format {
    type Err = ExportError;

    fn from_str(s: &str) -> Result<Format, ExportError> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| ExportError::UnknownFormat(s.to_string()))
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("unknown export format '{0}'")]
    UnknownFormat(String),
    #[error("no run {0}")]
    NoRun(i64),
    #[error(transparent)]
    Bench(#[from] BenchError),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// One format's writer.
trait Exporter {
    /// Write `runs` of `bench` (with what of their drives and results the format holds).
    fn write(&self, bench: &Bench, runs: &[RunRow], out: &mut dyn Write)
        -> Result<(), ExportError>;
}

/// The runs of `bench` (those in `only`, or all when it is empty) in `format`, whole before
/// any of it is written anywhere: a Bench failing half-way leaves no half an export.
pub fn export(bench: &Bench, format: Format, only: &[i64]) -> Result<Vec<u8>, ExportError> {
    let runs: Vec<RunRow> = bench
        .runs()?
        .into_iter()
        .filter(|r| only.is_empty() || only.contains(&r.id))
        .collect();
    if let Some(&missing) = only.iter().find(|id| !runs.iter().any(|r| r.id == **id)) {
        return Err(ExportError::NoRun(missing));
    }
    let mut out = Vec::new();
    format.exporter().write(bench, &runs, &mut out)?;
    Ok(out)
}
