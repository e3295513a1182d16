//! Write saturation (SNIA PTS 2.0 WSAT): purge, then 4 KiB random writes over the whole drive
//! until four times its capacity is written or 24 hours pass, whichever comes first; IOPS per
//! one-minute round against the time and against the total gigabytes written.
//! It drives the PTS variant's load: T4Q32 for the enterprise spec (on a simulated drive,
//! four streams on its clock), T2Q16 for the client one; `--pts-scale` shortens both bounds.

use engine::size::Span;
use engine::units::format_size;
use engine::workload::Limit;
use engine::Device;

use super::{Defaults, Kind, Options, Test, TestId};
use crate::analysis::Analysis;
use crate::context::Context;
use crate::params::{ns, Overrides};
use crate::precondition::Precondition;
use crate::result::{Report, TestResult};
use crate::saturation::SaturationAnalysis;
use crate::Result;
use crate::SuiteError;

/// PTS-E's T4Q32 depth per thread (PTS-C's is [`crate::pts::PtsVariant::load`]), the whole drive, and the
/// spec's 24 hours.
pub const DEFAULTS: Defaults = Defaults {
    qd: 32,
    block_bytes: 4096,
    span: Span::Percent(100.0),
    duration_s: 24.0 * 3600.0,
};

/// The spec's bound: this many times the drive's capacity written.
pub const CAPACITIES: u64 = 4;

pub const TEST: Test = Test::writing(
    TestId::Wsat,
    Kind::Saturation,
    None,
    "PTS write-saturation (WSAT): purge, 4 KiB random writes at T4Q32 over the whole span \
        until 4x the capacity is written or 1440 minutes pass; IOPS per minute against time \
        and TGBW",
    DEFAULTS,
    Options::WORKLOAD.with(Options::THREADS).with(Options::PTS),
    |dev, ctx, o| Ok(vec![run(dev, ctx, o)?]),
);

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<TestResult> {
    let capacity = dev.geometry().capacity_bytes;
    let block = o.block_bytes.unwrap_or(DEFAULTS.block_bytes);
    let span = o.span_within(capacity, block as u64).unwrap_or(capacity);
    let variant = o.pts_variant.unwrap_or_default();
    let (threads, qd) = variant.load();
    let scale = o.pts_scale.unwrap_or(1.0);
    let spec_bound = CAPACITIES * capacity;
    let scaled_bound = (spec_bound as f64 * scale) as u64 / block as u64 * block as u64;
    let bound = o.bytes.unwrap_or(scaled_bound.max(block as u64));
    let limit = Limit {
        duration_ns: Some(ns(o.duration_s.unwrap_or(DEFAULTS.duration_s * scale))),
        ios: o.ios,
        bytes: Some(bound),
    };
    let w = o.random_writes(block, span, o.qd.unwrap_or(qd), o.threads.unwrap_or(threads), limit);
    if ctx.precondition != Precondition::Fill {
        return Err(SuiteError::Parameter(format!(
            "--precondition {}: wsat measures the way from a clean drive to saturation, so it \
             takes no preconditioning; drop --precondition",
            ctx.precondition
        )));
    }
    let mut report = Report::new(TestId::Wsat, "");
    let deviations = &mut report.deviations;
    if w.threads != threads {
        deviations.push(format!("{} threads instead of {threads}", w.threads));
    }
    // The bytes bound is the test's own, and the variant sets the load.
    let spec = Defaults { qd, ..DEFAULTS };
    spec.note_overrides(
        deviations,
        &Overrides {
            bytes: None,
            ..o.clone()
        },
    );
    if scale != 1.0 {
        deviations.push(format!(
            "--pts-scale {scale}: bounded at {} written or {} s instead of {CAPACITIES}x the \
             capacity or 24 hours",
            format_size(bound),
            w.limit.duration_ns.unwrap_or(0) as f64 / 1e9
        ));
    } else if bound != spec_bound {
        deviations.push(format!(
            "bounded at {} written instead of {CAPACITIES}x the capacity ({})",
            format_size(bound),
            format_size(spec_bound)
        ));
    }
    DEFAULTS.note_span(deviations, o, span, capacity);
    report.label = format!(
        "Write saturation: {} random write, {}, {}",
        format_size(block.into()),
        w.load(),
        w.data.label()
    );

    // From a clean drive, as the spec says (its "fresh out of the box" state).
    let outcome = super::from_clean(ctx, dev, &w, &mut report)?;
    let analysis = SaturationAnalysis::of(&outcome.measurements.per_second, block, bound);
    report.analysis = Analysis::Saturation(analysis);
    Ok(report.finish(dev, &w, outcome))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pts::PtsVariant;

    #[test]
    fn the_record_is_the_spec() {
        assert_eq!(TestId::Wsat.name(), "wsat");
        assert_eq!(TestId::Wsat.kind(), Kind::Saturation);
        assert_eq!(super::super::find("wsat").unwrap().id, TestId::Wsat);
        let d = TEST.defaults.unwrap();
        assert_eq!((d.qd, d.block_bytes), (32, 4096));
        assert_eq!(PtsVariant::Enterprise.load(), (4, 32));
        assert_eq!(d.span, Span::Percent(100.0));
        assert_eq!(d.duration_s, 86_400.0);
        assert!((TEST.writes)(&Overrides::default()));
    }

    #[test]
    fn the_review_suite_does_not_run_it() {
        for quick in [false, true] {
            assert!(crate::runner::plan(quick)
                .iter()
                .all(|s| s.test != TestId::Wsat));
        }
    }
}
