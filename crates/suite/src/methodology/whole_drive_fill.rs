//! Whole-drive fill (the 2018-2021 reviews): purge, then 128 KiB sequential writes at QD32
//! over the whole drive once, its speed for every gigabyte written. An SLC cache shows as the
//! fast start: its size and the speed after it are found and reported.

use engine::pattern::DataKind;
use engine::shape::Shape;
use engine::size::Span;
use engine::units::format_size;
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use super::{Defaults, Kind, Options, Test, TestId};
use crate::analysis::Analysis;
use crate::context::Context;
use crate::fill_curve::{FillAnalysis, StoppedShort};
use crate::params::{Overrides, DEFAULT_SEED};
use crate::result::{Report, TestResult};
use crate::Result;

/// The whole drive, once: bounded by its bytes, not by time.
pub const DEFAULTS: Defaults = Defaults {
    qd: 32,
    block_bytes: 128 << 10,
    span: Span::Percent(100.0),
    duration_s: 0.0,
};

pub const TEST: Test = Test::writing(
    TestId::WholeDriveFill,
    Kind::Fill,
    None,
    "whole-drive fill: purge, then 128 KiB sequential writes at QD32 over the whole span once; MB/s for every GB written, the SLC cache's size and the speed after it",
    DEFAULTS,
    Options::WORKLOAD,
    |dev, ctx, o| Ok(vec![run(dev, ctx, o)?]),
);

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<TestResult> {
    let capacity = dev.geometry().capacity_bytes;
    let block = o.block_bytes.unwrap_or(DEFAULTS.block_bytes);
    let span = o
        .span_within(capacity, block as u64)
        .unwrap_or(capacity / block as u64 * block as u64);
    let w = Workload {
        access: Access::Sequential,
        block_bytes: block,
        offset_bytes: 0,
        span_bytes: span,
        read_pct: 0,
        op: None,
        data: o.data.unwrap_or(DataKind::Incompressible),
        qd: o.qd.unwrap_or(DEFAULTS.qd),
        threads: 1,
        limit: Limit {
            bytes: Some(o.bytes.unwrap_or(span)),
            duration_ns: o.duration_s.map(crate::params::ns),
            ios: o.ios,
        },
        seed: o.seed.unwrap_or(DEFAULT_SEED),
        shape: Shape::default(),
    };
    let mut report = Report::new(TestId::WholeDriveFill, "");
    DEFAULTS.note_overrides(&mut report.deviations, o);
    if span < capacity / block as u64 * block as u64 {
        report.deviations.push(format!(
            "filled {} of the drive's {}",
            format_size(span),
            format_size(capacity)
        ));
    }
    report.label = format!(
        "Whole-drive fill: {} sequential write, QD{}, {}",
        format_size(block.into()),
        w.qd,
        w.data.label()
    );
    // From clean: a cache the drive had emptied shows at its full size.
    let outcome = super::from_clean(ctx, dev, &w, &mut report)?;
    let summary = &outcome.measurements.summary;
    if summary.bytes < span {
        // Stopped short (--duration, --ios): say where, not only the limit.
        let stopped = format!(
            "stopped after {:.1} s with {:.1}% of the span written ({} of {})",
            summary.duration_s,
            100.0 * summary.bytes as f64 / span as f64,
            format_size(summary.bytes),
            format_size(span)
        );
        match o.duration_s {
            Some(d) => {
                report.deviations.retain(|d| !d.starts_with("duration "));
                report.deviations.push(format!("duration {d} s: {stopped}"));
            }
            None => report.deviations.push(stopped),
        }
    }
    let m = &outcome.measurements;
    let mut fill = FillAnalysis::of(&m.per_second, m.summary.point_s);
    fill.stopped_short = (summary.bytes < span).then_some(StoppedShort {
        written_bytes: summary.bytes,
        span_bytes: span,
    });
    report.analysis = Analysis::Fill(fill);
    Ok(report.finish(dev, &w, outcome))
}
