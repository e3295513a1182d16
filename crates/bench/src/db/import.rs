//! Reading a results directory for the Bench: the runs it holds (a suite's, or the results of
//! `ssdlab run` or `trace replay`; several when a directory was reused), each with its
//! identity. Results of ssdlab versions before run identities get one derived from what they
//! hold and where they are, the same the database migration gives the runs it already has,
//! so importing such a directory again stores nothing new.

use std::path::Path;

use suite::result::TestResult;
use suite::runner::SUITE_FILE;

use super::store::{identity_key, RunRecord};
use super::{BenchError, Result};

/// A run identity as the Bench keeps it: a UUID, hyphenated and lower case.
pub(crate) fn parse_run_id(id: &str) -> std::result::Result<String, Unwritten> {
    uuid::Uuid::try_parse(id)
        .map(|u| u.hyphenated().to_string())
        .map_err(|_| Unwritten::RunId {
            given: crate::term::printable(&id.chars().take(64).collect::<String>()).into_owned(),
        })
}

/// A field of a result that ssdlab could not have written, named by its path in the file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Unwritten {
    #[error(
        "run_id {given:?} is not a UUID (ssdlab writes one such as \
         67e55044-10b1-426f-9247-bb680e5fe0c8)"
    )]
    RunId { given: String },
    #[error("{field}.{name} is {value}: a measured figure is a finite number, never negative")]
    Figure {
        field: String,
        name: &'static str,
        value: f64,
    },
    #[error(
        "{field} {given:?} is not a test's name (letters, digits, '-', '_' and '.', not first, \
         at most 64)"
    )]
    Name { field: String, given: String },
    #[error(
        "{field} {given:?} is not a UTC time as ssdlab writes it (such as 2026-01-31T12:00:00Z)"
    )]
    Time { field: String, given: String },
}

/// The identity of a run stored before runs had one: a name-based (version 5) UUID of the
/// key runs were matched by then, the directory the run came from, and what its first
/// result measured with which parameters. Two such runs started in the same second on the
/// same target differ in one of these; the same directory imported again does not.
pub(crate) fn legacy_run_id(
    old_run_key: &str,
    source: Option<&str>,
    first: &FirstResult,
) -> String {
    let namespace = uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, b"urn:ssdlab:legacy-run");
    let name = format!(
        "{old_run_key}\n{}\n{}\n{}\n{}\n{}\n{}\n{}",
        source.unwrap_or(""),
        first.test,
        first.variant.as_deref().unwrap_or(""),
        first.started_at,
        first.ios,
        first.bytes,
        first.parameters
    );
    uuid::Uuid::new_v5(&namespace, name.as_bytes()).to_string()
}

/// What a legacy identity takes from a run's first result: fields a result file and the
/// database row both hold, as they were written.
pub(crate) struct FirstResult {
    pub test: String,
    pub variant: Option<String>,
    pub started_at: String,
    pub ios: u64,
    pub bytes: u64,
    /// The parameters as compact JSON (keys sorted).
    pub parameters: String,
}

impl FirstResult {
    pub(crate) fn of(r: &TestResult) -> FirstResult {
        FirstResult {
            test: r.test.name().into(),
            variant: r.variant.clone(),
            started_at: r.started_at.clone(),
            ios: r.summary.ios,
            bytes: r.summary.bytes,
            parameters: r.parameters.to_value().to_string(),
        }
    }
}

/// The key a run was matched by before runs had an identity (its drive, target, start and,
/// for a single test's run, its first test).
pub(crate) fn old_run_key(
    kind: &str,
    target_spec: &str,
    started_at: &str,
    first: &TestResult,
) -> String {
    let drive_key = identity_key(&first.target);
    match kind {
        "suite" => format!("{drive_key}|{target_spec}|{started_at}|suite"),
        kind => format!(
            "{drive_key}|{target_spec}|{started_at}|{kind}|{}",
            first.test
        ),
    }
}

impl RunRecord {
    /// A run of a single test (`ssdlab run`) whose target and start are `first`'s; complete
    /// when every result is.
    pub fn of_test(
        run_id: String,
        results: Vec<TestResult>,
        first: &TestResult,
        source: Option<String>,
    ) -> RunRecord {
        RunRecord {
            run_id,
            kind: "test".into(),
            target_spec: first.target.path.clone(),
            started_at: first.started_at.clone(),
            quick: false,
            complete: first.complete && results.iter().all(|r| r.complete),
            source,
            results,
        }
    }

    /// The runs of a results directory: a suite's (with `suite.json`), or the results of
    /// single tests. Every result belongs to the run its `run_id` names; results without one
    /// (earlier versions) to the suite's run, or to one run with a derived identity.
    pub fn from_dir(dir: &Path) -> Result<Vec<RunRecord>> {
        let input = |e: suite::SuiteError| BenchError::Input(e.to_string());
        let results = suite::results_dir::read_results_with_paths(dir).map_err(input)?;
        if results.is_empty() {
            return Err(BenchError::Input(format!(
                "{} holds no ssdlab results (STEM.json files)",
                dir.display()
            )));
        }
        let source = Some(
            std::fs::canonicalize(dir)
                .unwrap_or_else(|_| dir.to_path_buf())
                .display()
                .to_string(),
        );
        let suite_path = dir.join(SUITE_FILE);
        let suite = match std::fs::symlink_metadata(&suite_path) {
            Ok(_) => Some(suite::runner::read_suite(dir).map_err(input)?),
            Err(_) => None,
        };
        let bad = |path: &Path, why: Unwritten| {
            BenchError::Input(format!(
                "{}: {why}: not an ssdlab result, or a damaged one; nothing of {} was \
                 imported: correct or remove that file, then import the directory again",
                crate::term::printable(&path.display().to_string()),
                crate::term::printable(&dir.display().to_string())
            ))
        };
        if let Some(s) = &suite {
            check_time("started_at", &s.started_at).map_err(|e| bad(&suite_path, e))?;
        }
        let suite_id = match suite.as_ref().and_then(|s| s.run_id.as_deref()) {
            Some(id) => Some(parse_run_id(id).map_err(|e| bad(&suite_path, e))?),
            None => None,
        };

        // Group by run, in the order the runs started.
        let mut groups: Vec<(Option<String>, Vec<TestResult>)> = Vec::new();
        for (path, r) in results {
            check_result(&r).map_err(|e| bad(&path, e))?;
            let id = match r.run_id.as_deref() {
                Some(id) => Some(parse_run_id(id).map_err(|e| bad(&path, e))?),
                None => suite_id.clone(),
            };
            match groups.iter_mut().find(|(g, _)| *g == id) {
                Some((_, rs)) => rs.push(r),
                None => groups.push((id, vec![r])),
            }
        }
        let runs = groups
            .into_iter()
            .map(|(id, results)| {
                let first = &results[0];
                let mut run = match suite.as_ref().filter(|_| id == suite_id) {
                    Some(s) => RunRecord {
                        run_id: String::new(),
                        kind: "suite".into(),
                        target_spec: s.target_spec.clone(),
                        started_at: s.started_at.clone(),
                        quick: s.quick,
                        complete: s.complete,
                        source: source.clone(),
                        results: Vec::new(),
                    },
                    None => RunRecord::of_test(String::new(), Vec::new(), first, source.clone()),
                };
                run.run_id = id.unwrap_or_else(|| {
                    let key = old_run_key(&run.kind, &run.target_spec, &run.started_at, first);
                    legacy_run_id(&key, run.source.as_deref(), &FirstResult::of(first))
                });
                run.results = results;
                run
            })
            .collect();
        Ok(runs)
    }
}

/// Whether a result read from a file is one ssdlab could have written: its names are names
/// (they name files and pages, and are printed), its time is a time, its figures are finite
/// and not negative. The error says what is wrong.
pub fn check_result(r: &TestResult) -> std::result::Result<(), Unwritten> {
    if let Some(v) = &r.variant {
        check_name("variant", v)?;
    }
    check_time("started_at", &r.started_at)?;
    if let Some(id) = &r.run_id {
        parse_run_id(id)?;
    }
    check_summary("summary", &r.summary)?;
    for (i, p) in r.per_second.iter().enumerate() {
        let at = format!("per_second[{i}]");
        figure(&at, "iops", p.iops)?;
        figure(&at, "mbps", p.mbps)?;
        for (name, v) in [
            ("read_iops", p.read_iops),
            ("read_mbps", p.read_mbps),
            ("write_iops", p.write_iops),
            ("write_mbps", p.write_mbps),
            ("covered_s", p.covered_s),
            ("watts", p.watts),
        ] {
            if let Some(v) = v {
                figure(&at, name, v)?;
            }
        }
    }
    if let Some(s) = r.power.as_ref().and_then(|p| p.summary) {
        for (name, v) in [
            ("mean_w", s.mean_w),
            ("min_w", s.min_w),
            ("max_w", s.max_w),
            ("window_s", s.window_s),
            ("covered_s", s.covered_s),
        ] {
            figure("power.summary", name, v)?;
        }
    }
    for (i, p) in r.points.iter().enumerate() {
        let at = format!("points[{i}]");
        figure(&at, "x", p.x)?;
        check_summary(&format!("{at}.summary"), &p.summary)?;
    }
    for (i, p) in r.preconditioning.iter().enumerate() {
        if let Some(s) = &p.summary {
            check_summary(&format!("preconditioning[{i}].summary"), s)?;
        }
    }
    Ok(())
}

fn check_summary(at: &str, s: &engine::measure::Summary) -> std::result::Result<(), Unwritten> {
    for (name, v) in [
        ("duration_s", s.duration_s),
        ("iops", s.iops),
        ("mbps", s.mbps),
        ("busy_time_s", s.busy_time_s),
        ("avg_in_flight", s.avg_in_flight),
    ] {
        figure(at, name, v)?;
    }
    for (dir, d) in [("read", &s.read), ("write", &s.write), ("other", &s.other)] {
        let Some(d) = d else { continue };
        let at = format!("{at}.{dir}");
        let l = &d.latency_us;
        for (name, v) in [
            ("iops", d.iops),
            ("mbps", d.mbps),
            ("busy_time_s", d.busy_time_s),
            ("latency_us.min", l.min),
            ("latency_us.mean", l.mean),
            ("latency_us.p50", l.p50),
            ("latency_us.p90", l.p90),
            ("latency_us.p99", l.p99),
            ("latency_us.p999", l.p999),
            ("latency_us.max", l.max),
        ] {
            figure(&at, name, v)?;
        }
    }
    if let Some(c) = &s.cpu {
        for (name, v) in [
            ("user_s", c.user_s),
            ("system_s", c.system_s),
            ("per_io_us", c.per_io_us),
        ] {
            figure(&format!("{at}.cpu"), name, v)?;
        }
    }
    Ok(())
}

fn figure(at: &str, name: &'static str, v: f64) -> std::result::Result<(), Unwritten> {
    if v.is_finite() && v >= 0.0 {
        Ok(())
    } else {
        Err(Unwritten::Figure {
            field: at.into(),
            name,
            value: v,
        })
    }
}

/// A test's or variant's name: it names result files and pages, so letters, digits, '-',
/// '_' and '.' only (not first), at most 64 of them.
pub fn check_name(what: &str, s: &str) -> std::result::Result<(), Unwritten> {
    let ok = !s.is_empty()
        && s.len() <= 64
        && !s.starts_with('.')
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if ok {
        Ok(())
    } else {
        Err(Unwritten::Name {
            field: what.into(),
            given: s.chars().take(80).collect(),
        })
    }
}

/// A time as ssdlab writes it: UTC, RFC 3339, to the second (2026-01-31T12:00:00Z), and a
/// real one (no 31st of April).
pub fn check_time(what: &str, s: &str) -> std::result::Result<(), Unwritten> {
    let b = s.as_bytes();
    let num = |from: usize, to: usize| -> Option<u32> {
        let part = b.get(from..to)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| part.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0')))
    };
    let shaped = b.len() == 20
        && b[4] == b'-'
        && b[7] == b'-'
        && b[10] == b'T'
        && b[13] == b':'
        && b[16] == b':'
        && b[19] == b'Z';
    let valid = shaped
        && match (
            num(0, 4),
            num(5, 7),
            num(8, 10),
            num(11, 13),
            num(14, 16),
            num(17, 19),
        ) {
            (Some(y), Some(mo), Some(d), Some(h), Some(mi), Some(sec)) => {
                let leap = y.is_multiple_of(4) && (!y.is_multiple_of(100) || y.is_multiple_of(400));
                let days = match mo {
                    1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
                    4 | 6 | 9 | 11 => 30,
                    2 if leap => 29,
                    2 => 28,
                    _ => 0,
                };
                (1..=days).contains(&d) && h < 24 && mi < 60 && sec <= 60
            }
            _ => false,
        };
    if valid {
        Ok(())
    } else {
        Err(Unwritten::Time {
            field: what.into(),
            given: s.chars().take(80).collect(),
        })
    }
}
