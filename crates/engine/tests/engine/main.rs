//! The engine's integration tests, one binary: the driver and replay on files, argument
//! properties and power meters.
//!
//! One binary rather than one per file: each test binary links the whole dependency tree,
//! and a newcomer's `cargo test` spent more time linking them than running them.

mod cli_arg_props;
mod driver_on_files;
mod power_meter;
mod replay_on_files;
