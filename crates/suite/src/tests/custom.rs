//! A workload straight from the flags, for what the methodology does not cover and for
//! cross-checking against fio.

use engine::pattern::DataKind;
use engine::size::{format_size, Span};
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use crate::context::Context;
use crate::params::{ns, Overrides, DEFAULT_SEED};
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
    let w = Workload {
        access: o.access.unwrap_or(Access::Random),
        block_bytes: block,
        offset_bytes: o.offset_bytes.unwrap_or(0),
        span_bytes: o.span.unwrap_or(Span::Percent(100.0)).resolve(
            geo.capacity_bytes - o.offset_bytes.unwrap_or(0).min(geo.capacity_bytes),
            block as u64,
        ),
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
    let outcome = ctx.drive(dev, &w, &label, true)?;
    Ok(Report { label, ..report }.finish(dev, &w, outcome))
}
