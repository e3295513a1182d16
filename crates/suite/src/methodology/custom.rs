//! A workload straight from the flags, for what the methodology does not cover and for
//! cross-checking against fio.

use engine::pattern::DataKind;
use engine::size::{format_size, Span};
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use crate::context::Context;
use crate::params::{ns, region, Overrides, DEFAULT_SEED};
use crate::result::{Report, TestResult};
use crate::SuiteError;

pub fn run(
    dev: &mut dyn Device,
    ctx: &mut Context,
    o: &Overrides,
) -> Result<TestResult, SuiteError> {
    let report = Report::new("custom", "");
    let geo = dev.geometry();
    let block = o.block_bytes.unwrap_or(4096);
    let ends = o.ios.is_some() || o.bytes.is_some();
    let (offset, span) = region(o, Span::Percent(100.0), geo.capacity_bytes, block)?;
    let w = Workload {
        access: o.access.unwrap_or(Access::Random),
        block_bytes: block,
        offset_bytes: offset,
        span_bytes: span,
        read_pct: o.read_pct.unwrap_or(100),
        op: None,
        data: o.data.unwrap_or(DataKind::Incompressible),
        qd: o.qd.unwrap_or(1),
        limit: Limit {
            duration_ns: o.duration_s.or((!ends).then_some(60.0)).map(ns),
            ios: o.ios,
            bytes: o.bytes,
        },
        seed: o.seed.unwrap_or(DEFAULT_SEED),
    };
    let label = format!(
        "custom: {} {:?}, {}% read, QD{}",
        format_size(block as u64),
        w.access,
        w.read_pct,
        w.qd
    )
    .to_lowercase();
    let report = Report { label, ..report };
    super::run_workload(ctx, dev, &w, o.prefill, report)
}
