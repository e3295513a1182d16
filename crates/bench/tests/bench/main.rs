//! The Bench's integration tests, one binary: charts, imports and the web server on SQLite
//! and PostgreSQL.
//!
//! One binary rather than one per file: each test binary links the whole dependency tree,
//! and a newcomer's `cargo test` spent more time linking them than running them.

// The fixtures of `common` build this type (`common` is shared with the unit tests).
use bench::db::RunRecord;

mod caveats;
mod charts;
mod common;
mod import_properties;
mod serve;
mod serve_database;
