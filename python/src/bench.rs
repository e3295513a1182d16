//! `ssdlab.bench`: the Bench database (SQLite or PostgreSQL) read through the bench crate,
//! its drives, runs and results as pandas DataFrames.

use std::path::PathBuf;
use std::sync::Mutex;

use bench::db::Bench as Store;
use pyo3::prelude::*;

use crate::error::{msg, to_py};

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Bench>()?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    Ok(())
}

/// A Bench opened read-only: `ssdlab.bench.open(path_or_postgres_url)`.
#[pyclass(module = "ssdlab.bench", frozen)]
pub struct Bench {
    // A connection is used by one thread at a time; the lock lets the GIL go meanwhile.
    store: Mutex<Store>,
    location: String,
}

/// Rows as a DataFrame, through their JSON (the crate's own serialisation of each row).
fn frame<'py, T: serde::Serialize>(py: Python<'py>, rows: &[T]) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(rows).map_err(to_py)?;
    let records = py.import("json")?.call_method1("loads", (text,))?;
    py.import("pandas")?
        .getattr("DataFrame")?
        .call_method1("from_records", (records,))
}

impl Bench {
    fn with<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&Store) -> bench::db::Result<T> + Send,
    ) -> PyResult<T> {
        py.detach(|| {
            let store = self
                .store
                .lock()
                .map_err(|_| msg("the Bench's connection failed"))?;
            f(&store).map_err(to_py)
        })
    }
}

#[pymethods]
impl Bench {
    /// Every drive: id, name, kind, interface, model, serial, firmware, capacity_bytes,
    /// specs, runs, last_run.
    fn drives<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rows = self.with(py, |b| b.drives())?;
        frame(py, &rows)
    }

    /// Every run: id, drive_id, drive, kind, target_spec, started_at, tool_version, quick,
    /// complete, source, stored_at, results, uuid.
    fn runs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let rows = self.with(py, |b| b.runs())?;
        frame(py, &rows)
    }

    /// The results of one run, or of every run: id, run_id, drive_id, test, variant, label,
    /// complete and the whole result (`result`, as `bench export --format json` gives it).
    #[pyo3(signature = (run=None))]
    fn results<'py>(&self, py: Python<'py>, run: Option<i64>) -> PyResult<Bound<'py, PyAny>> {
        let stored = self.with(py, |b| {
            let runs = match run {
                Some(id) => vec![id],
                None => b.runs()?.into_iter().map(|r| r.id).collect(),
            };
            let mut all = Vec::new();
            for id in runs {
                all.extend(b.results_of_run(id)?);
            }
            Ok(all)
        })?;
        let rows: Vec<serde_json::Value> = stored
            .iter()
            .map(|s| {
                serde_json::json!({
                    "id": s.id,
                    "run_id": s.run_id,
                    "drive_id": s.drive_id,
                    "test": s.result.test.name(),
                    "variant": s.result.variant,
                    "label": s.result.label,
                    "complete": s.result.complete,
                    "result": s.result,
                })
            })
            .collect();
        frame(py, &rows)
    }

    /// Where the Bench is (a password in a URL shown as ***).
    #[getter]
    fn location(&self) -> &str {
        &self.location
    }

    fn __repr__(&self) -> String {
        format!("Bench({:?})", self.location)
    }
}

/// Open the Bench at a path or a `postgres://` URL, read-only (the CLI's `--db`; by default
/// the user's `~/.local/share/ssdlab/bench.db`).
#[pyfunction]
#[pyo3(signature = (location=None))]
fn open(py: Python<'_>, location: Option<PathBuf>) -> PyResult<Bench> {
    let path = location.unwrap_or_else(bench::db::default_path);
    let store = py.detach(|| Store::open_read_only(&path)).map_err(to_py)?;
    let location = store.location().to_string();
    Ok(Bench {
        store: Mutex::new(store),
        location,
    })
}
