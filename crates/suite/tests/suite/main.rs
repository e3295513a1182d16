//! The suite's integration tests, one binary: the whole suite on the simulator.
//!
//! One binary rather than one per file: each test binary links the whole dependency tree,
//! and a newcomer's `cargo test` spent more time linking them than running them.

mod on_simulator;
mod pts;
mod review_2021;
