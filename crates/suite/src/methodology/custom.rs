//! A workload straight from the flags, for what the methodology does not cover and for
//! cross-checking against fio.

use engine::pattern::DataKind;
use engine::size::Span;
use engine::units::format_size;
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use super::{Defaults, Fixes, Kind, Options, ReviewSection, Test, TestId, Verifies};
use crate::context::Context;
use crate::params::{ns, region, Overrides, DEFAULT_SEED};
use crate::result::{Report, TestResult};
use crate::{Result, SuiteError};

/// Random reads over the whole target at QD1 for a minute, unless the flags say otherwise.
pub const DEFAULTS: Defaults = Defaults {
    qd: 1,
    block_bytes: 4096,
    span: Span::Percent(100.0),
    duration_s: 60.0,
};

pub const TEST: Test = Test {
    id: TestId::Custom,
    kind: Kind::Summary,
    section: Some(ReviewSection::Custom),
    about: "any workload from the flags (--access, --bs or a mix 4K:67,8K:33, --distribution, --rate-iops, --burst, --qd or Q32T16, --threads, --read-pct, --span, --ios/--bytes/--duration)",
    defaults: Some(DEFAULTS),
    writes,
    takes: Options::WORKLOAD.with(Options::SHAPE).with(Options::OFFSET).with(Options::THREADS),
    fixes: Fixes::Nothing,
    verifies: Verifies::OnRequest,
    run: |dev, ctx, o| Ok(vec![run(dev, ctx, o)?]),
};

/// Reads only (its default) with `--no-prefill` write nothing, so they need no confirmation
/// on a device holding data; without it the span is filled before the reads.
fn writes(o: &Overrides) -> bool {
    !(o.read_pct.unwrap_or(100) == 100 && o.prefill == Some(false))
}

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<TestResult> {
    let geo = dev.geometry();
    let block = o.block_unit(DEFAULTS.block_bytes);
    let ends = o.ios.is_some() || o.bytes.is_some();
    let (offset, span) = region(o, DEFAULTS.span, geo.capacity_bytes, block)?;
    let w = Workload {
        access: o.access.unwrap_or(Access::Random),
        block_bytes: block,
        offset_bytes: offset,
        span_bytes: span,
        read_pct: o.read_pct.unwrap_or(100),
        op: None,
        data: o.data.unwrap_or(DataKind::Incompressible),
        qd: o.qd.unwrap_or(DEFAULTS.qd),
        limit: Limit {
            duration_ns: o
                .duration_s
                .or((!ends).then_some(DEFAULTS.duration_s))
                .map(ns),
            ios: o.ios,
            bytes: o.bytes,
        },
        seed: o.seed.unwrap_or(DEFAULT_SEED),
        shape: o.shape.clone(),
        threads: o.threads.unwrap_or(1),
    };
    let Some(target) = o.latency_target else {
        let report = Report::new(TestId::Custom, label(&w));
        return super::run_workload(ctx, dev, &w, o.prefill, report);
    };
    if ctx.verify.is_some() || w.shape.rate.is_some() {
        return Err(SuiteError::Parameter(
            "--latency-target tries the depths of a closed loop without --verify: drop \
             --verify or --rate-iops"
                .into(),
        ));
    }
    // The span is filled (when the workload reads) before the first depth only; the later
    // runs' results name that fill as theirs too.
    let mut filled = Vec::new();
    let max_qd = o.qd.unwrap_or(LATENCY_TARGET_MAX_QD);
    target.search(max_qd, |qd, first| {
        let w = Workload { qd, ..w.clone() };
        let report = Report::new(TestId::Custom, label(&w));
        if first {
            let r = super::run_workload(ctx, dev, &w, o.prefill, report)?;
            filled = r.preconditioning.clone();
            return Ok(r);
        }
        let outcome = ctx.drive(dev, &w, &report.label, true)?;
        let report = Report {
            preconditioning: filled.clone(),
            ..report
        };
        Ok(report.finish(dev, &w, outcome))
    })
}

/// The deepest queue `--latency-target` tries without a `--qd`.
const LATENCY_TARGET_MAX_QD: u32 = 256;

fn label(w: &Workload) -> String {
    let sizes = match &w.shape.block_mix {
        Some(mix) => mix.summary(),
        None => format_size(w.block_bytes as u64),
    };
    let spread = match (&w.shape.distribution, w.access) {
        (d, Access::Random) if !d.is_uniform() => format!(" {d}"),
        _ => String::new(),
    };
    let load = match w.threads {
        1 => format!("QD{}", w.qd),
        _ => w.load(),
    };
    // Only the access lowercased: sizes and depths keep their case (4 KiB, QD1).
    let access = format!("{:?}", w.access).to_lowercase();
    format!("custom: {sizes} {access}{spread}, {}% read, {load}", w.read_pct)
}
