//! A simulated drive's twin: the fidelity scorecard that checks the presets against what was
//! published of their drives ([`fidelity`]), the fit of a twin to a drive's results ([`fit`])
//! and the files a fitted twin is written to ([`files`]).

pub mod fidelity;
pub mod files;
pub mod fit;
