//! `ssdlab.trace`: read any trace the CLI reads into Arrow, its statistics, synthetic traces.

use std::path::PathBuf;

use arrow_array::RecordBatchReader;
use arrow_pyarrow::{IntoPyArrow, Table};
use pyo3::prelude::*;
use trace::{Format, ReadOptions};

use crate::batches::{Batches, Source, DEFAULT_BATCH};
use crate::error::{msg, to_py};
use crate::stats::Stats;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(read, m)?)?;
    m.add_function(wrap_pyfunction!(batches, m)?)?;
    m.add_function(wrap_pyfunction!(stats, m)?)?;
    m.add_function(wrap_pyfunction!(gen, m)?)?;
    m.add_function(wrap_pyfunction!(formats, m)?)?;
    m.add_function(wrap_pyfunction!(profiles, m)?)?;
    m.add_class::<Stats>()?;
    m.add_class::<crate::stats::Latency>()?;
    m.add_class::<crate::stats::SizeBreakdown>()?;
    Ok(())
}

fn options(format: Option<&str>, skip_bad: bool) -> PyResult<ReadOptions> {
    let format = format
        .map(|f| f.parse::<Format>())
        .transpose()
        .map_err(to_py)?;
    Ok(ReadOptions { format, skip_bad })
}

fn batch_rows(batch_size: usize) -> PyResult<usize> {
    if batch_size == 0 {
        return Err(msg("batch_size must be at least 1"));
    }
    Ok(batch_size)
}

/// The batches of the trace at `path`, opened (and its format detected) before returning.
fn file_batches(
    py: Python<'_>,
    path: PathBuf,
    opts: ReadOptions,
    rows: usize,
) -> PyResult<Batches> {
    py.detach(|| {
        Batches::start(
            move || trace::open_with(&path, opts).map(|r| Box::new(r) as Source),
            rows,
        )
    })
    .map_err(to_py)
}

/// Every batch collected into one table, without the GIL.
fn table(py: Python<'_>, b: Batches) -> PyResult<Bound<'_, PyAny>> {
    let schema = b.schema();
    let batches = py
        .detach(|| b.collect::<Result<Vec<_>, _>>())
        .map_err(|e| msg(crate::batches::error_message(&e)))?;
    let table = Table::try_new(batches, schema).map_err(|e| msg(e.to_string()))?;
    table.into_pyarrow(py)
}

/// Read a whole trace into a `pyarrow.Table`: one row per IO, offsets and lengths in bytes,
/// times in nanoseconds (null where the format does not record them).
#[pyfunction]
#[pyo3(signature = (path, format=None, skip_bad=false))]
fn read<'py>(
    py: Python<'py>,
    path: PathBuf,
    format: Option<&str>,
    skip_bad: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let b = file_batches(py, path, options(format, skip_bad)?, DEFAULT_BATCH)?;
    table(py, b)
}

/// A trace as a `pyarrow.RecordBatchReader` of `batch_size` rows: memory independent of the
/// trace's length.
#[pyfunction]
#[pyo3(signature = (path, format=None, skip_bad=false, batch_size=DEFAULT_BATCH))]
fn batches<'py>(
    py: Python<'py>,
    path: PathBuf,
    format: Option<&str>,
    skip_bad: bool,
    batch_size: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let b = file_batches(
        py,
        path,
        options(format, skip_bad)?,
        batch_rows(batch_size)?,
    )?;
    let reader: Box<dyn RecordBatchReader + Send> = Box::new(b);
    reader.into_pyarrow(py)
}

/// btt-compatible statistics of a trace (`ssdlab trace stats`).
#[pyfunction]
#[pyo3(signature = (path, format=None, skip_bad=false))]
fn stats(py: Python<'_>, path: PathBuf, format: Option<&str>, skip_bad: bool) -> PyResult<Stats> {
    let opts = options(format, skip_bad)?;
    let (s, skipped) = py
        .detach(|| trace::stats::stats_of_path(&path, opts))
        .map_err(to_py)?;
    Ok(Stats::new(s, skipped))
}

/// A synthetic Storage Bench trace (`ssdlab trace gen`) as a `pyarrow.Table`.
#[pyfunction]
#[pyo3(signature = (profile, scale=1.0, seed=1))]
fn gen<'py>(py: Python<'py>, profile: &str, scale: f64, seed: u64) -> PyResult<Bound<'py, PyAny>> {
    let Some(p) = trace::synth::Profile::by_name(profile) else {
        return Err(msg(format!(
            "unknown trace profile {profile:?}; expected one of: {}",
            trace::synth::Profile::NAMES.join(", ")
        )));
    };
    let b = py
        .detach(|| {
            Batches::start(
                move || {
                    let g = trace::synth::Generator::new(p, scale, seed)?;
                    Ok(Box::new(g.map(Ok)) as Source)
                },
                DEFAULT_BATCH,
            )
        })
        .map_err(to_py)?;
    table(py, b)
}

/// The formats `read` takes, by the names `format=` accepts.
#[pyfunction]
fn formats() -> Vec<&'static str> {
    Format::NAMES.to_vec()
}

/// The profiles `gen` takes.
#[pyfunction]
fn profiles() -> Vec<&'static str> {
    trace::synth::Profile::NAMES.to_vec()
}
