//! The `ssdlab` command's integration tests, one binary: each module drives the built binary
//! as a user would (a simulated drive, files, RAM-backed loop devices, a guest's emulated
//! drives, a browser).
//!
//! One binary rather than one per file: each test binary links the whole dependency tree,
//! and a newcomer's `cargo test` spent more time linking them than running them.

mod common;

mod bench_browser;
mod bench_cli;
mod cdp_smoke;
mod cli_experience;
mod emulated_drives;
mod errors;
mod fifo_paths;
mod fio_crosscheck;
mod fio_jobs;
mod fresh_instances;
mod full_filesystem;
mod headlines;
mod interrupt;
mod latency_percentiles;
mod polling;
mod power;
mod pts;
mod quick;
mod replay_inputs;
mod replay_limits;
mod report_browser;
mod review_2021;
mod run_lifecycle;
mod safety;
mod several_drives;
mod sim_fit;
#[cfg(feature = "ublk")]
mod sim_serve;
#[cfg(not(feature = "ublk"))]
mod sim_serve_unbuilt;
mod store_live;
mod suite_resume;
mod threads;
mod trace_gen;
mod verify;
mod whole_drive_fill;
mod workload_shapes;
mod wsat;
