//! A run's files: its results directory, each result's JSON and per-second CSV, `--json`, and
//! the report rendered from the directory.

use std::path::{Path, PathBuf};

use suite::result::TestResult;

use crate::error::Kept;
use crate::RunError;

/// The results directory of a run given no --out, created now: `results/TEST-STAMP`, to
/// the second, with a suffix when another run of that second has the name.
pub fn new_dir(test: &str) -> Result<PathBuf, RunError> {
    let stamp = suite::result::utc_now().replace([':', '-'], "");
    let base = PathBuf::from("results").join(format!("{test}-{}", stamp.trim_end_matches('Z')));
    Ok(suite::results_dir::create_new(&base)?)
}

/// The results directory of a new run: `--out` when given (refused when it holds another
/// run's results), else a new one ([`new_dir`]).
pub fn claim_dir(out: Option<&Path>, test: &str) -> Result<PathBuf, RunError> {
    match out {
        Some(dir) => {
            suite::results_dir::check_unused(dir)?;
            Ok(dir.to_path_buf())
        }
        None => new_dir(test),
    }
}

/// Why a set of results is not complete: the first IO failure, if any.
pub fn failure(results: &[TestResult]) -> Option<&str> {
    results.iter().find_map(|r| match &r.stopped {
        Some(engine::driver::Stopped::Failed(why)) => Some(why.as_str()),
        _ => None,
    })
}

/// When verification found corruption: what to tell the user (how many bad units, and the
/// first bad LBAs with what was expected and what was found).
pub fn corruption(results: &[TestResult]) -> Option<String> {
    let reports: Vec<_> = results.iter().filter_map(|r| r.verify.as_ref()).collect();
    let bad: u64 = reports.iter().map(|v| v.mismatches).sum();
    if bad == 0 {
        return None;
    }
    let mut first: Vec<&engine::verify::Mismatch> = reports.iter().flat_map(|v| &v.first).collect();
    first.sort_by_key(|m| m.lba);
    let mut text =
        format!("VERIFY FAILED: {bad} unit(s) did not read back as written; the first bad LBAs:");
    for m in first.iter().take(10) {
        text += &format!("\n  {m}");
    }
    if bad > 10 {
        text += "\n  ... (every result's \"verify\" lists the first 32)";
    }
    Some(text)
}

/// Write each result's files into the results directory `dir` (`fresh`: made for this run),
/// then `--json`. A directory that cannot be written is an error saying what it kept (a new
/// directory of nothing is removed); a `--json` that cannot be written is only lost, its
/// failure returned to be said.
pub fn write(
    dir: &Path,
    fresh: bool,
    results: &[TestResult],
    json: Option<&Path>,
) -> Result<Option<String>, RunError> {
    let written =
        (results.iter()).try_for_each(|r| suite::results_dir::write_result(dir, r).map(|_| ()));
    if let Err(error) = written {
        let kept = suite::results_dir::read_results(dir).map_or(0, |r| r.len());
        if kept == 0 && fresh {
            suite::results_dir::abandon_run(dir);
        }
        return Err(RunError::ResultsUnwritten {
            error,
            kept: Kept {
                dir: dir.to_path_buf(),
                results: kept,
            },
        });
    }
    Ok(json.and_then(|path| write_json(path, results).err().map(|e| e.to_string())))
}

/// `--json`: the result, or an array of a group's.
pub fn write_json(path: &Path, results: &[TestResult]) -> Result<(), suite::SuiteError> {
    let text = match results {
        [one] => serde_json::to_string_pretty(one),
        many => serde_json::to_string_pretty(many),
    }
    .map_err(|e| suite::SuiteError::Output(format!("{}: {e}", path.display())))?;
    suite::results_dir::write_atomic(path, text.as_bytes())
}

/// (Re)write `DIR/report.html` from the results in DIR; returns its path.
pub fn write_report(dir: &Path) -> Result<PathBuf, RunError> {
    let results = suite::results_dir::read_results(dir)?;
    if results.is_empty() {
        return Err(RunError::NoResults(dir.to_path_buf()));
    }
    let record = suite::runner::read_suite(dir).ok();
    // In the suite's order when there is one.
    let ordered: Vec<TestResult> = match &record {
        Some(rec) => {
            let mut v: Vec<TestResult> = rec
                .steps
                .iter()
                .flat_map(|s| &s.results)
                .filter_map(|stem| results.iter().find(|r| &r.file_stem() == stem).cloned())
                .collect();
            let rest: Vec<TestResult> = results
                .iter()
                .filter(|r| !v.iter().any(|o| o.file_stem() == r.file_stem()))
                .cloned()
                .collect();
            v.extend(rest);
            v
        }
        None => results,
    };
    let html = bench::report::render(&ordered, record.as_ref());
    let path = dir.join("report.html");
    suite::results_dir::write_atomic(&path, html.as_bytes())?;
    Ok(path)
}
