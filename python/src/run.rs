//! `ssdlab.run` and `Drive.run`: a test of the methodology on a target, as `ssdlab run` runs
//! it (the suite crate's `methodology::run`), its results the objects the CLI writes.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use engine::driver::Progress;
use engine::size::{parse_duration, parse_size, Span};
use engine::target::OpenRequest;
use engine::workload::Access;
use engine::Device;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use suite::context::{Context, Observer};
use suite::params::Overrides;
use suite::result::TestResult;

use crate::error::{msg, to_py};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(tests, m)?)?;
    m.add_class::<Result>()?;
    Ok(())
}

/// A script shows no progress bar.
struct Quiet;

impl Observer for Quiet {
    fn phase(&mut self, _label: &str, _clock: engine::Clock) {}
    fn progress(&mut self, _p: &Progress) {}
    fn phase_done(&mut self) {}
    fn note(&mut self, _text: &str) {}
}

/// One result of a test: what the CLI writes as `TEST.json`.
#[pyclass(module = "ssdlab", frozen, skip_from_py_object)]
pub struct Result {
    /// The test, as `ssdlab run` names it.
    #[pyo3(get)]
    test: String,
    /// Which of the test's results this is, when it makes several.
    #[pyo3(get)]
    variant: Option<String>,
    #[pyo3(get)]
    label: String,
    /// False when the run failed or stopped part-way.
    #[pyo3(get)]
    complete: bool,
    /// The whole result, as the CLI writes it.
    #[pyo3(get)]
    json: String,
}

#[pymethods]
impl Result {
    /// The result as the JSON the CLI writes, parsed.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("json")?.call_method1("loads", (&self.json,))
    }

    /// Its per-second series as a `pandas.DataFrame`, a row per second.
    fn per_second<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let d = self.to_dict(py)?;
        py.import("pandas")?
            .getattr("DataFrame")?
            .call1((d.get_item("per_second")?,))
    }

    fn __repr__(&self) -> String {
        format!(
            "Result(test={:?}, label={:?}, complete={})",
            self.test,
            self.label,
            if self.complete { "True" } else { "False" }
        )
    }
}

impl Result {
    fn new(r: &TestResult) -> PyResult<Self> {
        Ok(Result {
            test: r.test.name().to_string(),
            variant: r.variant.clone(),
            label: r.label.clone(),
            complete: r.complete,
            json: serde_json::to_string_pretty(r).map_err(to_py)?,
        })
    }
}

fn size(name: &str, v: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(n) = v.extract::<u64>() {
        return Ok(n);
    }
    let text: String = v.str()?.extract()?;
    parse_size(&text).map_err(|e| msg(format!("{name}: {e}")))
}

/// The keyword arguments `ssdlab run`'s flags of the same names take, as overrides.
pub fn overrides(kw: Option<&Bound<'_, PyDict>>) -> PyResult<Overrides> {
    let mut o = Overrides::default();
    let Some(kw) = kw else { return Ok(o) };
    for (k, v) in kw.iter() {
        let key: String = k.extract()?;
        let text = || -> PyResult<String> { v.str()?.extract() };
        match key.as_str() {
            "qd" => o.qd = Some(v.extract()?),
            "threads" => o.threads = Some(v.extract()?),
            "bs" => {
                let b = size("bs", &v)?;
                o.block_bytes =
                    Some(u32::try_from(b).map_err(|_| msg(format!("bs: {b} is too large")))?)
            }
            "span" => o.span = Some(Span::parse(&text()?).map_err(|e| msg(e.to_string()))?),
            "offset" => o.offset_bytes = Some(size("offset", &v)?),
            "duration" => {
                o.duration_s = Some(match v.extract::<f64>() {
                    Ok(s) => s,
                    Err(_) => parse_duration(&text()?).map_err(|e| msg(e.to_string()))?,
                })
            }
            "ios" => o.ios = Some(v.extract()?),
            "bytes" => o.bytes = Some(size("bytes", &v)?),
            "read_pct" => o.read_pct = Some(v.extract()?),
            "access" => {
                o.access = Some(match text()?.as_str() {
                    "random" | "rand" => Access::Random,
                    "sequential" | "seq" => Access::Sequential,
                    other => {
                        return Err(msg(format!(
                            "unknown access '{other}': use random or sequential"
                        )))
                    }
                })
            }
            "seed" => o.seed = Some(v.extract()?),
            "spare" => o.spare_pct = Some(v.extract()?),
            "prefill" => o.prefill = Some(v.extract()?),
            "rest" => o.rest_s = Some(v.extract()?),
            "trace" => o.trace = Some(text()?),
            "trace_scale" => o.trace_scale = Some(v.extract()?),
            "pts_scale" => o.pts_scale = Some(v.extract()?),
            other => {
                return Err(msg(format!(
                    "unknown override {other:?}: use qd, threads, bs, span, offset, duration, \
                     ios, bytes, read_pct, access, seed, spare, prefill, rest, trace, \
                     trace_scale or pts_scale"
                )))
            }
        }
    }
    Ok(o)
}

/// Run `test` on `dev` (called without the GIL); every result, and in `out` (when given)
/// their files, as `ssdlab run --out` writes them.
pub fn run_on(
    dev: &mut dyn Device,
    test: &suite::methodology::Test,
    o: &Overrides,
    out: Option<&std::path::Path>,
    stop: &AtomicBool,
) -> suite::Result<Vec<TestResult>> {
    let mut quiet = Quiet;
    let mut ctx = Context::new(stop, &mut quiet);
    let run_id = suite::results_dir::new_run_id();
    if let Some(dir) = out {
        suite::results_dir::start_run(dir, &run_id)?;
    }
    let mut results = suite::methodology::run(test.id, dev, &mut ctx, o)?;
    for r in &mut results {
        r.run_id = Some(run_id.clone());
        if let Some(dir) = out {
            suite::results_dir::write_result(dir, r)?;
        }
    }
    Ok(results)
}

/// Run `f` on a thread of its own without the GIL while this one answers Python's signals:
/// Ctrl-C (KeyboardInterrupt) sets the stop flag `f` is given, as the CLI's Ctrl-C does, and
/// is raised once `f` has stopped.
pub fn interruptible<T: Send>(
    py: Python<'_>,
    f: impl FnOnce(&AtomicBool) -> T + Send,
) -> PyResult<T> {
    // How often the waiting thread takes the GIL to look for a signal.
    const POLL: std::time::Duration = std::time::Duration::from_millis(100);
    let stop = AtomicBool::new(false);
    let (tx, mut rx) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        let stop = &stop;
        scope.spawn(move || {
            let _ = tx.send(f(stop));
        });
        let mut interrupted = None;
        loop {
            // `&mut`: a Receiver may move between threads but not be shared.
            let rx = &mut rx;
            match py.detach(move || rx.recv_timeout(POLL)) {
                Ok(out) => return interrupted.map_or(Ok(out), Err),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                    if interrupted.is_none() {
                        if let Err(e) = py.check_signals() {
                            stop.store(true, std::sync::atomic::Ordering::Relaxed);
                            interrupted = Some(e);
                        }
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(msg("the run's thread ended without a result"));
                }
            }
        }
    })
}

/// The results as Python objects.
pub fn to_py_results(results: suite::Result<Vec<TestResult>>) -> PyResult<Vec<Result>> {
    results.map_err(to_py)?.iter().map(Result::new).collect()
}

pub fn find(test: &str) -> PyResult<&'static suite::methodology::Test> {
    suite::methodology::find(test).map_err(|_| {
        msg(format!(
            "unknown test '{test}': use one of {}",
            suite::methodology::names().join(", ")
        ))
    })
}

/// Run a test on any target `ssdlab run --target` takes (`sim:PRESET,...`,
/// `file:PATH:SIZE`, a block device named again in `destroy_data`); keyword arguments are
/// `ssdlab run`'s flags (qd, bs, ios, duration, seed, ...). `out` also writes the results'
/// files there.
#[pyfunction]
#[pyo3(signature = (test, target, *, out=None, destroy_data=None, **overrides))]
fn run(
    py: Python<'_>,
    test: &str,
    target: &str,
    out: Option<PathBuf>,
    destroy_data: Option<String>,
    overrides: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<Result>> {
    let t = find(test)?;
    let o = self::overrides(overrides)?;
    let request = OpenRequest {
        write: (t.writes)(&o),
        backend: Default::default(),
        destroy_data,
        polling: Default::default(),
    };
    // Opened on the thread that runs it: an io_uring ring stays on the thread that made it.
    // A `file:` target it created is removed again if the run fails.
    to_py_results(interruptible(py, |stop| {
        let (mut dev, mut created) = suite::target::open_created(target, &request)?;
        let results = run_on(dev.as_mut(), t, &o, out.as_deref(), stop)?;
        created.keep();
        Ok(results)
    })?)
}

/// The tests `run` takes, by name.
#[pyfunction]
fn tests() -> Vec<&'static str> {
    suite::methodology::names().to_vec()
}
