//! The tests of METHODOLOGY.md, one module each, and the registry `ssdlab run` uses.

pub mod consistency;
pub mod corners;
pub mod custom;
pub mod power;
pub mod seq_incompressible;
pub mod steady_state;
pub mod storage_bench;
pub mod transfer_sweep;
pub mod trim;
pub mod trim_reads;
pub mod verify;

use engine::workload::Workload;
use engine::Device;

use crate::context::Context;
use crate::params::Overrides;
use crate::precondition::{self, BeforeReads};
use crate::result::{Report, TestResult};
use crate::SuiteError;

pub struct TestInfo {
    pub name: &'static str,
    pub about: &'static str,
    /// Whether the test writes (and so needs the safety checks on a block device).
    pub writes: bool,
}

pub const TESTS: &[TestInfo] = &[
    TestInfo {
        name: "consistency",
        about: "IO consistency: purge, fill, 4 KiB random writes at QD32 for 2000 s, IOPS per second",
        writes: true,
    },
    TestInfo {
        name: "corners",
        about: "the four corners: every row below, random and sequential writes with both data kinds",
        writes: true,
    },
    TestInfo {
        name: "random-read",
        about: "4 KiB random reads, QD3, 8 GiB span, 3 minutes (span filled first)",
        writes: true,
    },
    TestInfo {
        name: "random-write",
        about: "4 KiB random writes, QD3, 8 GiB span, 3 minutes",
        writes: true,
    },
    TestInfo {
        name: "random-write-qd32",
        about: "4 KiB random writes, QD32, 8 GiB span, 3 minutes, incompressible",
        writes: true,
    },
    TestInfo {
        name: "seq-read",
        about: "128 KiB sequential reads, QD1, whole span, 1 minute (span filled first)",
        writes: true,
    },
    TestInfo {
        name: "seq-write",
        about: "128 KiB sequential writes, QD1, whole span, 1 minute",
        writes: true,
    },
    TestInfo {
        name: "steady-state",
        about: "4 KiB random writes over the whole span in 60 s rounds until the SNIA PTS steady-state rule holds (at most 25 rounds)",
        writes: true,
    },
    TestInfo {
        name: "seq-incompressible",
        about: "AS-SSD style: 1 GiB sequential write then read, 16 MiB transfers, QD1, incompressible",
        writes: true,
    },
    TestInfo {
        name: "transfer-sweep",
        about: "ATTO style: 512 B to 64 MiB transfers, sequential write and read of 256 MiB, QD4, compressible",
        writes: true,
    },
    TestInfo {
        name: "trim",
        about: "TRIM validation: full-span write passes clean, tortured (40 min) and after TRIM; verdict",
        writes: true,
    },
    TestInfo {
        name: "storage-bench",
        about: "the Storage Bench: replay Heavy 2011 and Light 2011 look-alikes (or --trace) with idle capped at 25 ms; scaled to a target smaller than their 120 GB",
        writes: true,
    },
    TestInfo {
        name: "verify",
        about: "data verification: write a span (256 MiB) with 4 KiB-128 KiB transfers at QD1-32, read back as it goes and at the end; exits non-zero on corruption",
        writes: true,
    },
    TestInfo {
        name: "power-idle",
        about: "power idle (active idle, no link power management): rest 60 s, measure 60 s; needs --power-meter on a real drive",
        writes: false,
    },
    TestInfo {
        name: "power-slumber",
        about: "slumber power with HIPM+DIPM (SATA) or APST (NVMe) set, and put back after: rest 60 s, measure 60 s",
        writes: false,
    },
    TestInfo {
        name: "power-seq-write",
        about: "power during 128 KiB sequential writes, QD32, 60 s on a purged drive, then 60 s idle (SLC folding); MB/s per W",
        writes: true,
    },
    TestInfo {
        name: "power-random-write",
        about: "power during 4 KiB random writes, QD32, 8 GiB span, 60 s on a purged drive; IOPS per W",
        writes: true,
    },
    TestInfo {
        name: "custom",
        about: "any workload from the flags (--access, --bs, --qd, --read-pct, --span, --ios/--bytes/--duration)",
        writes: true,
    },
];

/// Whether running `name` with these overrides writes the target: a custom workload of
/// reads only (its default) with `--no-prefill` does not, so it needs no confirmation on a
/// device holding data; without it the span is filled before the reads.
pub fn writes(name: &str, o: &Overrides) -> bool {
    let info = TESTS.iter().find(|t| t.name == name);
    let reads_only = o.read_pct.unwrap_or(100) == 100 && o.prefill == Some(false);
    info.is_some_and(|t| t.writes) && !(name == "custom" && reads_only)
}

/// Whether `--verify` applies to a test: those whose measured phase is driven workloads.
/// TRIM checks what trimmed blocks read as on its own; the Storage Bench replays a trace;
/// `verify` always verifies.
pub fn takes_verify(name: &str) -> bool {
    !matches!(name, "trim" | "storage-bench" | "verify") && !name.starts_with("power-")
}

pub fn find(name: &str) -> Result<&'static TestInfo, SuiteError> {
    TESTS.iter().find(|t| t.name == name).ok_or_else(|| {
        let names: Vec<&str> = TESTS.iter().map(|t| t.name).collect();
        SuiteError::UnknownTest(name.to_string(), names.join(", "))
    })
}

/// Run a test by name. Groups (corners) return several results.
pub fn run(
    name: &str,
    dev: &mut dyn Device,
    ctx: &mut Context,
    o: &Overrides,
) -> Result<Vec<TestResult>, SuiteError> {
    find(name)?;
    o.validate(name)?;
    match name {
        "consistency" => Ok(vec![consistency::run(dev, ctx, o)?]),
        "corners" => corners::run_all(dev, ctx, o),
        "custom" => Ok(vec![custom::run(dev, ctx, o)?]),
        "steady-state" => Ok(vec![steady_state::run(dev, ctx, o)?]),
        "seq-incompressible" => seq_incompressible::run(dev, ctx, o),
        "transfer-sweep" => transfer_sweep::run(dev, ctx, o),
        "trim" => Ok(vec![trim::run(dev, ctx, o)?]),
        "verify" => Ok(vec![verify::run(dev, ctx, o)?]),
        "storage-bench" => storage_bench::run(dev, ctx, o),
        power if power.starts_with("power-") => {
            let state = power::State::of_test(power).expect("a power test");
            Ok(vec![power::run(state, dev, ctx, o)?])
        }
        corner => Ok(vec![corners::run_one(corners::find(corner)?, dev, ctx, o)?]),
    }
}

/// The measured phase of a test that is one workload: a span it reads is filled first (or,
/// with `--no-prefill`, the result says it was not), the workload runs, and with `--verify` on
/// reads only the fill's data is checked after the measured reads.
pub(crate) fn run_workload(
    ctx: &mut Context,
    dev: &mut dyn Device,
    w: &Workload,
    prefill: Option<bool>,
    mut report: Report,
) -> Result<TestResult, SuiteError> {
    let mut verification = match precondition::before_reads(ctx, dev, w, prefill, &mut report)? {
        BeforeReads::Ready(v) => v,
        BeforeReads::Stopped(outcome) => return Ok(report.finish(dev, w, outcome)),
    };
    let mut outcome = ctx.drive(dev, w, &report.label, true)?;
    if let Some(v) = verification.as_mut() {
        ctx.finish_verify(dev, v, w.qd, &mut outcome)?;
    }
    Ok(report.finish(dev, w, outcome))
}
