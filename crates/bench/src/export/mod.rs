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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::tests::{result, run};

    #[test]
    fn formats_are_parsed_by_their_names_only() {
        for f in Format::ALL {
            assert_eq!(f.name().parse::<Format>().unwrap(), f);
        }
        let e = "jsno".parse::<Format>().unwrap_err();
        assert_eq!(e.to_string(), "unknown export format 'jsno'");
    }

    #[test]
    fn the_runs_asked_for_are_exported_and_one_not_there_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let mut b = Bench::open(&tmp.path().join("bench.db")).unwrap();
        let t = "2026-01-01T00:00:00Z";
        for model in ["a", "b"] {
            b.store(&run(
                model,
                t,
                vec![result("seq-write", None, model, t, 1.0)],
            ))
            .unwrap();
        }
        let csv = String::from_utf8(export(&b, Format::Csv, &[2]).unwrap()).unwrap();
        let rows: Vec<&str> = csv.lines().collect();
        assert_eq!(rows.len(), 2, "{csv}");
        assert!(rows[1].starts_with("2,"), "{csv}");
        let json: serde_json::Value =
            serde_json::from_slice(&export(&b, Format::Json, &[]).unwrap()).unwrap();
        assert_eq!(json["runs"].as_array().unwrap().len(), 2, "{json}");
        assert!(matches!(
            export(&b, Format::Json, &[1, 3]),
            Err(ExportError::NoRun(3))
        ));
    }
}
