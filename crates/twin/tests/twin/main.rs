//! The twin's integration tests, one binary: the fidelity scorecard.

mod fidelity;
