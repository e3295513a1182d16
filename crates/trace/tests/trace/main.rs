//! The trace crate's integration tests, one binary: readers, writers, statistics, synthetic
//! traces and the cross-checks against btt and fio.
//!
//! One binary rather than one per file: each test binary links the whole dependency tree,
//! and a newcomer's `cargo test` spent more time linking them than running them.

mod btt_crosscheck;
mod fio_iolog_from_fio;
mod fuzz_regressions;
mod readers;
mod stats_path;
mod synth;
mod writers;
