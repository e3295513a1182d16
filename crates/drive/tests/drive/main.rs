//! Drive detection's integration tests, one binary.
//!
//! One binary rather than one per file: each test binary links the whole dependency tree,
//! and a newcomer's `cargo test` spent more time linking them than running them.

mod detect;
mod parsers_never_panic;
