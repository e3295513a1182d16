//! A workload straight from the flags, for what the methodology does not cover and for
//! cross-checking against fio.

use engine::pattern::DataKind;
use engine::size::Span;
use engine::units::format_size;
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use super::{Defaults, Test, TestId, Verifies};
use crate::context::Context;
use crate::params::{ns, region, Overrides, DEFAULT_SEED};
use crate::result::{Report, TestResult};
use crate::Result;

/// Random reads over the whole target at QD1 for a minute, unless the flags say otherwise.
pub const DEFAULTS: Defaults = Defaults {
    qd: 1,
    block_bytes: 4096,
    span: Span::Percent(100.0),
    duration_s: 60.0,
};

pub const TEST: Test = Test {
    id: TestId::Custom,
    about: "any workload from the flags (--access, --bs or a mix such as 4K:67,8K:33, --distribution, --qd, --read-pct, --span, --ios/--bytes/--duration)",
    defaults: Some(DEFAULTS),
    writes,
    takes_offset: true,
    verifies: Verifies::OnRequest,
    run: |dev, ctx, o| Ok(vec![run(dev, ctx, o)?]),
};

/// Reads only (its default) with `--no-prefill` write nothing, so they need no confirmation
/// on a device holding data; without it the span is filled before the reads.
fn writes(o: &Overrides) -> bool {
    !(o.read_pct.unwrap_or(100) == 100 && o.prefill == Some(false))
}

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<TestResult> {
    let report = Report::new(TestId::Custom, "");
    let geo = dev.geometry();
    let block = match &o.shape.block_mix {
        Some(mix) => mix.smallest(),
        None => o.block_bytes.unwrap_or(DEFAULTS.block_bytes),
    };
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
    };
    let sizes = match &w.shape.block_mix {
        Some(mix) => mix.to_string(),
        None => format_size(block as u64),
    };
    let spread = match (&w.shape.distribution, w.access) {
        (d, Access::Random) if !d.is_uniform() => format!(" {d}"),
        _ => String::new(),
    };
    let label = format!(
        "custom: {sizes} {:?}{spread}, {}% read, QD{}",
        w.access, w.read_pct, w.qd
    )
    .to_lowercase();
    let report = Report { label, ..report };
    super::run_workload(ctx, dev, &w, o.prefill, report)
}
