//! `ssdlab.run` and `Drive.run`: a test of the methodology on a target, as `ssdlab run` runs
//! it (the suite crate's `methodology::run`), its results the objects the CLI writes.

use std::sync::atomic::AtomicBool;

use ::run::keywords::Value;
use ::run::{Face, Request, ResultsDir};
use bench::live::{LiveStore, Note};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use suite::context::{Observer, Silent};
use suite::result::TestResult;

use crate::error::{in_keywords, msg, to_py};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_test, m)?)?;
    m.add_function(wrap_pyfunction!(tests, m)?)?;
    m.add_class::<Result>()?;
    Ok(())
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
    pub fn new(r: &TestResult) -> PyResult<Self> {
        Ok(Result {
            test: r.test.name().to_string(),
            variant: r.variant.clone(),
            label: r.label.clone(),
            complete: r.complete,
            json: serde_json::to_string_pretty(r).map_err(to_py)?,
        })
    }
}

/// Keyword arguments as a command's flags ([`::run::keywords`]): True and False are
/// switches, a list repeats the flag, anything else is its `str()`.
pub fn keywords(kw: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, Value)>> {
    let Some(kw) = kw else { return Ok(Vec::new()) };
    kw.iter()
        .map(|(k, v)| {
            let value = match v.extract::<bool>() {
                Ok(b) if v.is_instance_of::<pyo3::types::PyBool>() => Value::Switch(b),
                _ if v.is_instance_of::<pyo3::types::PyList>() => Value::List(
                    (v.try_iter()?)
                        .map(|x| x?.str()?.extract())
                        .collect::<PyResult<_>>()?,
                ),
                _ => Value::Text(v.str()?.extract()?),
            };
            Ok((k.extract()?, value))
        })
        .collect()
}

/// The request `ssdlab run TEST --target TARGET` with these keywords as flags makes; without
/// `out` the results are only returned: nothing is written or stored.
pub fn request(test: &str, target: &str, kw: Option<&Bound<'_, PyDict>>) -> PyResult<Request> {
    let keywords = keywords(kw)?;
    let flags = ::run::keywords::run_flags(test, target, &keywords).map_err(to_py)?;
    let mut request = flags.request().map_err(in_keywords)?;
    if !keywords.iter().any(|(k, _)| k == "out") {
        request.output.dir = ResultsDir::Nowhere;
    }
    Ok(request)
}

/// A script's run: no progress shown; a run the Bench could not store is said as a warning.
struct Script {
    quiet: Silent,
    not_stored: Option<String>,
}

impl Face for Script {
    fn observer(&mut self) -> &mut dyn Observer {
        &mut self.quiet
    }

    fn store(&mut self, store: &mut LiveStore, stop: &AtomicBool) {
        let until = store.deadline();
        if let Some(note @ Note::NotStored { .. }) = store.finish(until, stop, |_| {}) {
            self.not_stored = Some(note.to_string());
        }
    }
}

/// Carry out `request` as `ssdlab run` does, on `dev` when given (a script's drive) else on
/// its target, on a thread of its own without the GIL; its results as Python objects.
pub fn execute(
    py: Python<'_>,
    request: &Request,
    dev: Option<&mut (dyn engine::Device + Send)>,
) -> PyResult<Vec<Result>> {
    let mut face = Script {
        quiet: Silent,
        not_stored: None,
    };
    let outcome = interruptible(py, |stop| match dev {
        Some(dev) => ::run::execute_on(request, dev, &mut face, stop),
        None => ::run::execute(request, &mut face, stop),
    })?
    .map_err(in_keywords)?;
    if let Some(text) = face.not_stored {
        let warnings = py.import("warnings")?;
        warnings.call_method1("warn", (text,))?;
    }
    outcome.results.iter().map(Result::new).collect()
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

/// Run a test on any target `ssdlab run --target` takes (`sim:PRESET,...`,
/// `file:PATH:SIZE`, a block device named again in `destroy_data`), as `ssdlab run` does:
/// every flag of it is a keyword argument (qd="Q32T16", bs, ios, duration, seed, verify=True,
/// ...). With `out` the results' files and report are written there and the run is stored in
/// the Bench (`db`, `no_store=True`), as the CLI does; without, they are only returned.
#[pyfunction]
#[pyo3(name = "run", signature = (test, target, **flags))]
fn run_test(
    py: Python<'_>,
    test: &str,
    target: &str,
    flags: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<Result>> {
    // Opened on the thread that runs it: an io_uring ring stays on the thread that made it.
    execute(py, &request(test, target, flags)?, None)
}

/// The tests `run` takes, by name.
#[pyfunction]
fn tests() -> Vec<&'static str> {
    suite::methodology::names().to_vec()
}
