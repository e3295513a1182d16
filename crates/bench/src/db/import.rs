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
pub(crate) fn parse_run_id(id: &str) -> std::result::Result<String, String> {
    uuid::Uuid::try_parse(id)
        .map(|u| u.hyphenated().to_string())
        .map_err(|_| {
            format!(
                "run_id {:?} is not a UUID (ssdlab writes one such as 67e55044-10b1-426f-9247-bb680e5fe0c8)",
                crate::term::printable(&id.chars().take(64).collect::<String>())
            )
        })
}

/// The identity of a run stored before runs had one: a name-based (version 5) UUID of the
/// key runs were matched by then, the directory the run came from, and what its first
/// result measured with which parameters. Two such runs started in the same second on the
/// same target differ in one of these; the same directory imported again does not.
pub(crate) fn legacy_run_id(old_run_key: &str, source: Option<&str>, first: &FirstResult) -> String {
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
            test: r.test.clone(),
            variant: r.variant.clone(),
            started_at: r.started_at.clone(),
            ios: r.summary.ios,
            bytes: r.summary.bytes,
            parameters: r.parameters.to_string(),
        }
    }
}

/// The key a run was matched by before runs had an identity (its drive, target, start and,
/// for a single test's run, its first test).
pub(crate) fn old_run_key(kind: &str, target_spec: &str, started_at: &str, first: &TestResult) -> String {
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
        let bad = |path: &Path, why: String| {
            BenchError::Input(format!(
                "{}: {why}: not an ssdlab result, or a damaged one; it was not imported",
                path.display()
            ))
        };
        let suite_id = match suite.as_ref().and_then(|s| s.run_id.as_deref()) {
            Some(id) => Some(parse_run_id(id).map_err(|e| bad(&suite_path, e))?),
            None => None,
        };

        // Group by run, in the order the runs started.
        let mut groups: Vec<(Option<String>, Vec<TestResult>)> = Vec::new();
        for (path, r) in results {
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
                    None => RunRecord {
                        run_id: String::new(),
                        kind: "test".into(),
                        target_spec: first.target.path.clone(),
                        started_at: first.started_at.clone(),
                        quick: false,
                        complete: results.iter().all(|r| r.complete),
                        source: source.clone(),
                        results: Vec::new(),
                    },
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
