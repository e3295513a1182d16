//! `ssdlab._ssdlab`: the compiled half of the `ssdlab` Python package.
//!
//! Like polars' `py-polars`, it converts types and releases the GIL, nothing more: traces are
//! read by the `trace` crate, drives simulated by `sim`. Each Python submodule is one file
//! here; `python/ssdlab/` re-exports them under their public names and adds what is pure
//! Python (the Dask sweep, a twin's fit on a Dask client).

use pyo3::prelude::*;

mod batches;
mod bench;
mod error;
mod fit;
mod review;
mod run;
mod sim;
mod stats;
mod trace;

#[pymodule]
fn _ssdlab(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("SsdlabError", py.get_type::<error::SsdlabError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    trace::register(m)?;
    sim::register(m)?;
    fit::register(m)?;
    run::register(m)?;
    review::register(m)?;
    bench::register(m)?;
    Ok(())
}
