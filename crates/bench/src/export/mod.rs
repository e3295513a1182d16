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

    /// A quick run's consistency result, whose 60 s never left the opening burst.
    fn quick_consistency(model: &str, t: &str) -> suite::result::TestResult {
        let mut r = result("consistency", Some("spare-25"), model, t, 270.0);
        r.deviations = vec!["duration 60 s instead of 2000 s".into()];
        let mut a = r.consistency().expect("a consistency fixture").clone();
        a.steady_from_s = 42.0;
        a.reached = false;
        r.analysis = suite::Analysis::Consistency(a);
        r
    }

    #[test]
    fn csv_says_what_each_figure_is_and_runs_no_formula() {
        let tmp = tempfile::tempdir().unwrap();
        let mut b = Bench::open(&tmp.path().join("bench.db")).unwrap();
        let t = "2026-01-01T00:00:00Z";
        let model = "=HYPERLINK(\"http://evil\",\"x\")";
        let mut label = result("seq-read", None, model, t, 1.0);
        label.label = "-1+1<b>bold</b>".into();
        let results = vec![
            result("consistency", None, model, t, 1.0),
            quick_consistency(model, t),
            label,
        ];
        b.store(&run(model, t, results)).unwrap();
        let csv = String::from_utf8(export(&b, Format::Csv, &[]).unwrap()).unwrap();
        let rows: Vec<&str> = csv.lines().collect();
        assert!(
            rows[0].ends_with(",simulated,quick,deviations,steady_state_reached"),
            "{csv}"
        );
        assert!(rows[1].starts_with("1,\"'=HYPERLINK("), "{csv}");
        assert!(rows[1].ends_with(",true,true,,true"), "{csv}");
        assert!(
            rows[2].ends_with(",true,true,duration 60 s instead of 2000 s,false"),
            "{csv}"
        );
        assert!(rows[3].contains(",'-1+1<b>bold</b>,"), "{csv}");
        assert!(rows[3].ends_with(",true,true,,"), "{csv}");
        // The JSON says it too, in the result's figures.
        let json: serde_json::Value =
            serde_json::from_slice(&export(&b, Format::Json, &[]).unwrap()).unwrap();
        let figures = |i: usize| json["runs"][0]["results"][i]["analysis"]["reached"].clone();
        assert_eq!((figures(0), figures(1)), (true.into(), false.into()));
    }

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
