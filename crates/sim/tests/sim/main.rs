//! The simulator's integration tests, one binary: configuration errors, behaviour, mechanisms,
//! energy, faults, drive facts and the write-amplification model.
//!
//! One binary rather than one per file: each test binary links the whole dependency tree,
//! and a newcomer's `cargo test` spent more time linking them than running them.

mod common;

mod behaviour;
mod config_errors;
mod drive_facts;
mod energy;
mod faults;
mod invariants;
mod mechanisms;
mod wa_model;
