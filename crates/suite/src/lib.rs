//! The review suite: the tests of METHODOLOGY.md on any target, the preconditioning they
//! need, and the self-describing results they produce.

pub mod analysis;
pub mod context;
pub mod fidelity;
pub mod methodology;
pub mod params;
pub mod precondition;
pub mod replay;
pub mod result;
pub mod results_dir;
pub mod runner;
pub mod stats;
pub mod target;

use params::Overrides;

#[derive(Debug, thiserror::Error)]
pub enum SuiteError {
    #[error("unknown test '{0}': use one of {1}")]
    UnknownTest(String, String),
    #[error("{0}")]
    Parameter(String),
    #[error("{0}")]
    Target(String),
    #[error(transparent)]
    TargetOpen(#[from] engine::target::TargetError),
    #[error(transparent)]
    Driver(#[from] engine::driver::DriverError),
    #[error("{0}")]
    Output(String),
    #[error("{0}")]
    Unavailable(String),
    #[error("interrupted before anything was measured")]
    Interrupted,
}

/// Record what a user changed from the methodology's parameters.
pub(crate) fn note_overrides(
    out: &mut Vec<String>,
    o: &Overrides,
    qd: u32,
    block: u32,
    duration_s: f64,
) {
    if let Some(q) = o.qd.filter(|&q| q != qd) {
        out.push(format!("queue depth {q} instead of {qd}"));
    }
    if let Some(b) = o.block_bytes.filter(|&b| b != block) {
        out.push(format!("block size {b} bytes instead of {block}"));
    }
    if let Some(d) = o.duration_s.filter(|&d| d != duration_s) {
        out.push(format!("duration {d} s instead of {duration_s} s"));
    }
    if o.ios.is_some() || o.bytes.is_some() {
        out.push("bounded by an IO or byte count as well as time".into());
    }
}
