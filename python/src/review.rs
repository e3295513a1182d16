//! `ssdlab.suite` and its `Review`s: a methodology's review of one drive or several, as `ssdlab suite` runs
//! it (the run crate's `review`): the same flags as keywords, the same results directory,
//! report and Bench run.

use ::run::{ReviewFace, Reviewed, Scope, StepsProgress};
use ::suite::context::Silent;
use bench::live::Note;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::error::{in_keywords, msg, to_py};
use crate::run::{interruptible, keywords, Result};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(review_suite, m)?)?;
    m.add_class::<Review>()?;
    Ok(())
}

/// One drive's review: where it is, how it ended, and its results in the suite's order.
#[pyclass(module = "ssdlab", frozen)]
pub struct Review {
    /// The target, as given.
    #[pyo3(get)]
    target: String,
    /// Its results directory (`suite.json`, a result file per test, `report.html`).
    #[pyo3(get)]
    dir: String,
    /// The run's identity in the Bench.
    #[pyo3(get)]
    run_id: String,
    /// True when every step of the methodology ran to its end.
    #[pyo3(get)]
    complete: bool,
    /// The steps not complete, by id, with their status ("pending", "failed", ...).
    #[pyo3(get)]
    unfinished: Vec<(String, String)>,
    /// The report's path, when it could be written.
    #[pyo3(get)]
    report: Option<String>,
    results: Vec<Py<Result>>,
}

#[pymethods]
impl Review {
    /// The results of its steps, in the suite's order, as `run` returns them.
    #[getter]
    fn results(&self, py: Python<'_>) -> Vec<Py<Result>> {
        self.results.iter().map(|r| r.clone_ref(py)).collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Review(target={:?}, dir={:?}, complete={})",
            self.target,
            self.dir,
            if self.complete { "True" } else { "False" }
        )
    }
}

/// A script's review: no progress shown.
struct Script;

impl ReviewFace for Script {
    fn progress(&self, _scope: Scope) -> Box<dyn StepsProgress + '_> {
        Box::new(Silent)
    }
}

/// Review `target` (a spec, or a list of them side by side) as `ssdlab suite` does: every
/// flag of it is a keyword argument (methodology="pts-c", quick=True, only=["trim"], out,
/// resume, jobs, db, no_store=True, ...). The results are written to a directory (`out`, or
/// results/suite-TIMESTAMP as the CLI's) with their report, and stored in the Bench; a
/// review for each drive is returned.
#[pyfunction]
#[pyo3(name = "suite", signature = (target, **flags))]
fn review_suite(
    py: Python<'_>,
    target: &Bound<'_, PyAny>,
    flags: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<Review>> {
    let targets: Vec<String> = match target.cast::<PyList>() {
        Ok(list) => list.extract()?,
        Err(_) => vec![target.extract()?],
    };
    let flags = ::run::keywords::suite_flags(&targets, &keywords(flags)?).map_err(to_py)?;
    let review = flags.review().map_err(in_keywords)?;
    let (outcomes, not_stored) = interruptible(py, |stop| {
        let outcomes = ::run::review(&review, &Script, stop);
        let mut not_stored = Vec::new();
        let outcomes: Vec<_> = (outcomes.into_iter())
            .map(|o| {
                o.map(|mut done| {
                    let until = done.store.deadline();
                    if let Some(note @ Note::NotStored { .. }) =
                        done.store.finish(until, stop, |_| {})
                    {
                        not_stored.push(note.to_string());
                    }
                    done
                })
            })
            .collect();
        (outcomes, not_stored)
    })?;
    let warnings = py.import("warnings")?;
    for text in not_stored {
        warnings.call_method1("warn", (text,))?;
    }
    let mut reviews = Vec::new();
    for (drive, outcome) in review.drives.iter().zip(outcomes) {
        let done = outcome.map_err(|e| {
            let e = ::run::keywords::as_keywords(&crate::error::message(&e));
            msg(format!("{}: {e}", drive.target))
        })?;
        reviews.push(review_of(py, &drive.target, &drive.dir, &done)?);
    }
    Ok(reviews)
}

fn review_of(
    py: Python<'_>,
    target: &str,
    dir: &std::path::Path,
    done: &Reviewed,
) -> PyResult<Review> {
    let all = ::suite::results_dir::read_results(dir).map_err(to_py)?;
    let rec = &done.record;
    let results = (rec.steps.iter())
        .flat_map(|s| &s.results)
        .filter_map(|stem| all.iter().find(|r| &r.file_stem() == stem))
        .map(|r| Py::new(py, Result::new(r)?))
        .collect::<PyResult<_>>()?;
    Ok(Review {
        target: target.into(),
        dir: dir.display().to_string(),
        run_id: rec.run_id.clone().unwrap_or_default(),
        complete: rec.complete,
        unfinished: (rec.unfinished())
            .map(|s| (s.id.clone(), format!("{:?}", s.status).to_lowercase()))
            .collect(),
        report: done.report.as_ref().map(|p| p.display().to_string()),
        results,
    })
}
