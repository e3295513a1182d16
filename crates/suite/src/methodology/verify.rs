//! Data verification (`ssdlab run verify`), after fio's `verify=crc32c` with a backlog: write
//! a span with a mix of transfer sizes, queue depths and access patterns, every unit carrying
//! its LBA, a write generation and a crc32c; read back each backlog as it fills and
//! everything at the end. Whatever does not read back as written is reported by LBA with what
//! was expected and what was found, and the CLI exits non-zero. The result's `points` hold
//! every phase's figures (x = transfer size); its summary is the last phase's.

use serde::{Deserialize, Serialize};

use engine::pattern::DataKind;
use engine::shape::Shape;
use engine::size::Span;
use engine::units::format_size;
use engine::verify::{Verification, VerifyOptions};
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use super::{Fixes, Kind, Options, ReviewSection, Test, TestId, Verifies};
use crate::analysis::Analysis;
use crate::context::Context;
use crate::params::{region, Overrides, DEFAULT_SEED};
use crate::result::{CurvePoint, Parameters, Report, TestResult, VerifyParameters};
use crate::Result;
use crate::SuiteError;

/// The span written when `--span` is not given (capped at the target).
pub const SPAN: u64 = 256 << 20;
/// Read back what was written every this many 4 KiB units (`--verify-backlog`).
pub const BACKLOG_UNITS: u64 = 1024;

pub const TEST: Test = Test {
    id: TestId::Verify,
    kind: Kind::Verify,
    section: Some(ReviewSection::Verify),
    about: "data verification: write a span (256 MiB) with 4 KiB-128 KiB transfers at QD1-32, read back as it goes and at the end; exits non-zero on corruption",
    defaults: None,
    writes: super::always,
    takes: Options::WORKLOAD.with(Options::OFFSET),
    fixes: Fixes::Nothing,
    verifies: Verifies::Always,
    run: |dev, ctx, o| Ok(vec![run(dev, ctx, o)?]),
};

/// One write phase: a pattern, a transfer size, a queue depth and how much of the span it
/// writes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PhaseSpec {
    pub access: Access,
    pub block_bytes: u32,
    pub qd: u32,
    pub span_share: f64,
}

const fn phase(access: Access, block_kib: u32, qd: u32, span_share: f64) -> PhaseSpec {
    PhaseSpec {
        access,
        block_bytes: block_kib << 10,
        qd,
        span_share,
    }
}

/// The first pass writes every unit, so the random phases overwrite this run's own data (a
/// lost write then reads as an older generation). Random transfers are aligned to their size,
/// so the final read-back, in 128 KiB reads, sees every write whole (a torn one too).
pub const PHASES: &[PhaseSpec] = &[
    phase(Access::Sequential, 128, 4, 1.0),
    phase(Access::Random, 4, 32, 0.25),
    phase(Access::Random, 16, 8, 0.25),
    phase(Access::Random, 64, 2, 0.25),
    phase(Access::Sequential, 32, 16, 0.5),
    phase(Access::Random, 8, 1, 0.05),
];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VerifyAnalysis {
    pub phases: Vec<PhaseSpec>,
    pub span_bytes: u64,
    pub offset_bytes: u64,
    pub backlog_units: u64,
}

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<TestResult> {
    let geo = dev.geometry();
    let largest = PHASES.iter().map(|p| p.block_bytes).max().unwrap_or(4096);
    let (offset, span) = region(o, Span::Bytes(SPAN), geo.capacity_bytes, largest)?;
    if span == 0 {
        return Err(SuiteError::Parameter(format!(
            "verify needs a span of at least {}: give a larger --span or target",
            format_size(largest as u64)
        )));
    }
    let seed = o.seed.unwrap_or(DEFAULT_SEED);
    let opts = ctx.verify.unwrap_or(VerifyOptions {
        backlog_units: BACKLOG_UNITS,
    });
    let mut report = Report::new(
        TestId::Verify,
        format!(
            "data verification: {} written with 4 KiB to 128 KiB transfers at QD1 to QD32",
            format_size(span)
        ),
    );
    let smallest = PHASES.iter().map(|p| p.block_bytes).min().unwrap_or(4096);
    let mut v = Verification::new(dev, offset, span, smallest, seed, opts)
        .map_err(engine::driver::DriverError::from)?;
    let mut last = None;
    for (i, p) in PHASES.iter().enumerate() {
        let bytes = ((span as f64 * p.span_share) as u64 / p.block_bytes as u64).max(1)
            * p.block_bytes as u64;
        let w = Workload {
            access: p.access,
            block_bytes: p.block_bytes,
            offset_bytes: offset,
            span_bytes: span,
            read_pct: 0,
            op: None,
            data: o.data.unwrap_or(DataKind::Incompressible),
            qd: p.qd,
            limit: Limit {
                bytes: Some(bytes),
                ..Limit::default()
            },
            seed: seed + i as u64,
            shape: Shape::default(),
            threads: 1,
        };
        let label = format!(
            "verify: {} {}, QD{}",
            format_size(p.block_bytes as u64),
            format!("{:?}", p.access).to_lowercase(),
            p.qd
        );
        let outcome = ctx.drive_verified(dev, &w, &label, true, &mut v)?;
        report.points.push(CurvePoint {
            x: p.block_bytes as f64,
            summary: outcome.measurements.summary.clone(),
        });
        let stopped = outcome.stopped.is_some();
        last = Some((w, outcome));
        if stopped {
            break;
        }
    }
    let (w, mut outcome) = last.expect("a phase ran");
    ctx.finish_verify(dev, &mut v, 32, &mut outcome)?;
    report.analysis = Analysis::Verify(VerifyAnalysis {
        phases: PHASES.to_vec(),
        span_bytes: span,
        offset_bytes: offset,
        backlog_units: opts.backlog_units,
    });
    let mut result = report.finish(dev, &w, outcome);
    result.parameters = Parameters::Verify(VerifyParameters {
        offset_bytes: offset,
        span_bytes: span,
        phases: PHASES.to_vec(),
        backlog_units: opts.backlog_units,
        unit_bytes: v.unit_bytes(),
        seed,
        data: w.data,
    });
    Ok(result)
}
