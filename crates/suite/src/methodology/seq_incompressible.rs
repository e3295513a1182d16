//! Incompressible sequential (docs/methodology.md section 4, AS-SSD style): purge the drive, then
//! write and read a 1 GiB region once with 16 MiB transfers at QD1, incompressible data.

use engine::pattern::DataKind;
use engine::shape::Shape;
use engine::size::Span;
use engine::units::format_size;
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use super::{Defaults, Kind, Options, ReviewSection, Test, TestId};
use crate::context::Context;
use crate::params::{Overrides, DEFAULT_SEED};
use crate::result::{Report, TestResult};
use crate::Result;

pub const REGION_BYTES: u64 = 1 << 30;

/// Bounded by the region's bytes, not by time.
pub const DEFAULTS: Defaults = Defaults {
    qd: 1,
    block_bytes: 16 << 20,
    span: Span::Bytes(REGION_BYTES),
    duration_s: 0.0,
};

pub const TEST: Test = Test::writing(
    TestId::SeqIncompressible,
    Kind::Summary,
    Some(ReviewSection::SeqIncompressible),
    "AS-SSD style: on a purged drive, 1 GiB sequential write then read, 16 MiB transfers, QD1, incompressible",
    DEFAULTS,
    Options::WORKLOAD,
    run,
);

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<Vec<TestResult>> {
    let geo = dev.geometry();
    let block = o.block_bytes.unwrap_or(DEFAULTS.block_bytes);
    let want = o
        .span_within(geo.capacity_bytes, block as u64)
        .unwrap_or(REGION_BYTES);
    let region = want.min(geo.capacity_bytes) / block as u64 * block as u64;
    let mut results = Vec::new();
    for (variant, read_pct) in [("write", 0u8), ("read", 100u8)] {
        let w = Workload {
            access: Access::Sequential,
            block_bytes: block,
            offset_bytes: 0,
            span_bytes: region,
            read_pct,
            op: None,
            data: o.data.unwrap_or(DataKind::Incompressible),
            qd: o.qd.unwrap_or(DEFAULTS.qd),
            limit: Limit {
                bytes: Some(region),
                ..Limit::default()
            },
            seed: o.seed.unwrap_or(DEFAULT_SEED),
            shape: Shape::default(),
            threads: 1,
        };
        let mut report = Report::new(
            TestId::SeqIncompressible,
            format!(
                "{} sequential {variant}, {} transfers, QD{}, incompressible",
                format_size(region),
                format_size(block as u64),
                w.qd
            ),
        );
        report.variant = Some(variant.into());
        DEFAULTS.note_overrides(&mut report.deviations, o);
        if region < REGION_BYTES && o.span.is_none() {
            report.deviations.push(format!(
                "region {} instead of {}: the target is smaller",
                format_size(region),
                format_size(REGION_BYTES)
            ));
        }
        // The reviews ran it on an empty drive ("TurboWrite plays a massive role", [004]), so
        // its write is a clean drive's, not the test's before it: a transfer sweep first
        // leaves an 840 EVO mSATA's 3 GiB cache full and its write at 290 MB/s for 560
        // (BENCHMARKS #27).
        let outcome = if read_pct == 0 {
            super::from_clean(ctx, dev, &w, &mut report)?
        } else {
            ctx.drive(dev, &w, &report.label, true)?
        };
        let stop = outcome.stopped.is_some();
        results.push(report.finish(dev, &w, outcome));
        if stop {
            break;
        }
    }
    Ok(results)
}
