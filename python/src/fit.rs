//! `ssdlab.sim.fit`: a simulated twin of a drive, as `ssdlab sim fit` fits it (the twin
//! crate's `fit::fit`, the same files written), its drives measured on this machine's threads
//! or by a Python callable (`ssdlab.sim.fit` gives one that sends them to a Dask client); and
//! `measure_drive`, what such a callable runs where it sends a drive.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use twin::fidelity::{Figures, Measure, MeasureError};
use twin::files::TwinFiles;
use twin::fit::{self, Budget, Measurer, Naming, Target};

use crate::error::{msg, SsdlabError};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fit_twin, m)?)?;
    m.add_function(wrap_pyfunction!(measure_drive, m)?)?;
    m.add_class::<Twin>()?;
    Ok(())
}

/// A fitted twin: its file, its report, and the fit's figures.
#[pyclass(module = "ssdlab.sim", frozen, skip_from_py_object)]
pub struct Twin {
    /// The twin's TOML file (`ssdlab.run(test, "sim:" + path)` runs it).
    #[pyo3(get)]
    path: String,
    /// Its fit's report (Markdown; `.fit.json` beside it is `to_dict()`).
    #[pyo3(get)]
    report: String,
    /// The twin as a spec: the preset and the keys it sets.
    #[pyo3(get)]
    spec: String,
    #[pyo3(get)]
    loss_start: f64,
    #[pyo3(get)]
    loss_twin: f64,
    /// Simulated drives evaluated (screened ones, when screening).
    #[pyo3(get)]
    evaluations: usize,
    /// The median relative error of the figures held out, or None without a hold-out.
    #[pyo3(get)]
    held_out_median_error: Option<f64>,
    json: String,
}

#[pymethods]
impl Twin {
    /// The fit's report as its `.fit.json` holds it, parsed.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("json")?.call_method1("loads", (&self.json,))
    }

    fn __repr__(&self) -> String {
        format!(
            "Twin(path={:?}, loss_twin={:.4}, loss_start={:.4}, evaluations={})",
            self.path, self.loss_twin, self.loss_start, self.evaluations
        )
    }
}

/// One measurement (`corners`, `consistency`, `heavy`, ...) of a fresh simulated drive,
/// its tests `time_scale` as long: the figures a fit compares. Pure: the same arguments give
/// the same figures anywhere.
#[pyfunction]
fn measure_drive(
    py: Python<'_>,
    spec: String,
    measure: &str,
    time_scale: f64,
) -> PyResult<Figures> {
    let m = Measure::named(measure).ok_or_else(|| msg(format!("no measurement '{measure}'")))?;
    py.detach(|| m.run_shortened(&spec, time_scale))
        .map_err(|e| msg(e.to_string()))
}

/// Fit a twin; see `ssdlab.sim.fit`, which documents the arguments.
#[pyfunction]
#[pyo3(signature = (output, results, claims, drive, start, hold_out, params, evals, seed, jobs, screen, measure, on_progress, reference=None, known=Vec::new(), seeds=1))]
#[allow(clippy::too_many_arguments)]
fn fit_twin(
    py: Python<'_>,
    output: PathBuf,
    results: Vec<PathBuf>,
    claims: Option<String>,
    drive: Option<String>,
    start: String,
    hold_out: Vec<String>,
    params: Vec<String>,
    evals: usize,
    seed: u64,
    jobs: usize,
    screen: Option<u32>,
    measure: Option<Py<PyAny>>,
    on_progress: Option<Py<PyAny>>,
    reference: Option<String>,
    known: Vec<String>,
    seeds: u64,
) -> PyResult<Twin> {
    let files = TwinFiles::beside(&output).map_err(|e| msg(e.to_string()))?;
    let target = target_of(claims, drive, &results)?;
    // Known hardware is set in the start and left out of the search, as `--known` does.
    let (from, params) = fit::known(sim::spec_of(&start), &params, &known)
        .map_err(|e| msg(e.named(Naming::Keywords)))?;
    // A failure of the callable itself (a lost cluster, a bug), not a drive refused: kept,
    // later drives not sent, and raised when the search returns.
    let failed: Arc<Mutex<Option<PyErr>>> = Arc::default();
    let measurer = measure.map(|callable| measurer_of(callable, failed.clone()));
    let request = fit::Request {
        from,
        target,
        hold_out,
        params,
        budget: Budget {
            evaluations: evals,
            seed,
            jobs,
        },
        screen,
        cache: Some(files.evaluations.clone()),
        measurer,
        reference,
    };
    let fitted = py.detach(|| {
        let mut progress = |p: &fit::Progress| {
            // After each generation: Ctrl-C (a KeyboardInterrupt), or the callback's own
            // error, stops the search; the drives measured are kept for the fit's next run.
            let stop = Python::attach(|py| {
                py.check_signals()?;
                match &on_progress {
                    Some(callback) => callback
                        .call1(py, (p.evaluations, p.budget, p.best_loss, p.eta_s))
                        .map(drop),
                    None => Ok(()),
                }
            });
            match stop {
                Ok(()) if failed.lock().expect("failed").is_none() => ControlFlow::Continue(()),
                Ok(()) => ControlFlow::Break(()),
                Err(e) => {
                    failed.lock().expect("failed").get_or_insert(e);
                    ControlFlow::Break(())
                }
            }
        };
        // A search at each seed, as `sim fit --seeds` runs them.
        fit::fit_seeds(&request, seeds, &mut |_| {}, &mut progress)
    });
    if let Some(e) = failed.lock().expect("failed").take() {
        return Err(e);
    }
    let fitted = fitted.map_err(|e| msg(e.named(Naming::Keywords)))?;
    files
        .write(&fitted, bench::fit_chart::loss_chart)
        .map_err(|e| msg(e.to_string()))?;
    let r = &fitted.report;
    Ok(Twin {
        path: files.twin.display().to_string(),
        report: files.report.display().to_string(),
        spec: r.twin.clone(),
        loss_start: r.loss_start,
        loss_twin: r.loss_twin,
        evaluations: r.evaluations,
        held_out_median_error: fit::median_error(&r.held_out),
        json: serde_json::to_string_pretty(r).map_err(|e| msg(e.to_string()))?,
    })
}

/// What the twin is fitted to: the drive's results directories, or a claims file about
/// `drive`.
fn target_of(
    claims: Option<String>,
    drive: Option<String>,
    results: &[PathBuf],
) -> PyResult<Target> {
    match (claims, results.is_empty()) {
        (Some(claims), true) => {
            let drive =
                drive.ok_or_else(|| msg("claims= needs drive=: the drive they are about"))?;
            // Claims comparing the drive with another aim at the other's preset.
            let mut other = twin::fidelity::preset_figures(|_, _| {});
            Target::from_claims_file(&claims, &drive, &mut other)
        }
        (None, false) => Target::from_results_dirs(results),
        (Some(_), false) => return Err(msg("give results or claims=, not both")),
        (None, true) => {
            return Err(msg(
                "nothing to fit: give the drive's results directories, or claims= and drive=",
            ))
        }
    }
    .map_err(|e| msg(e.to_string()))
}

/// Measurements by a Python callable (on a Dask cluster): a drive the simulator refuses is
/// one the search leaves; any other failure is kept in `failed`, later drives not sent.
fn measurer_of(callable: Py<PyAny>, failed: Arc<Mutex<Option<PyErr>>>) -> Measurer {
    Arc::new(move |spec: &str, m: Measure, time_scale: f64| {
        if failed.lock().expect("failed").is_some() {
            return Err(MeasureError::Elsewhere(
                "not measured: an earlier measurement failed".into(),
            ));
        }
        Python::attach(|py| {
            let out = callable
                .call1(py, (spec, m.prefix(), time_scale))
                .and_then(|f| f.extract::<Figures>(py));
            match out {
                Ok(f) => Ok(f),
                // The simulator refused the drive: a drive the search leaves.
                Err(e) if e.is_instance_of::<SsdlabError>(py) => {
                    Err(MeasureError::Elsewhere(e.value(py).to_string()))
                }
                Err(e) => {
                    let text = e.to_string();
                    failed.lock().expect("failed").get_or_insert(e);
                    Err(MeasureError::Elsewhere(text))
                }
            }
        })
    })
}
