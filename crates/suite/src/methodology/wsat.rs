//! Write saturation (SNIA PTS 2.0 WSAT): purge, then 4 KiB random writes over the whole drive
//! until four times its capacity is written or 24 hours pass, whichever comes first; IOPS per
//! one-minute round against the time and against the total gigabytes written.
//! The enterprise spec drives it with 4 threads of 32 outstanding IOs each (T4Q32), as this
//! does (on a simulated drive, four streams on its clock).

use engine::shape::Shape;
use engine::pattern::DataKind;
use engine::size::Span;
use engine::units::format_size;
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use super::{Defaults, Kind, Test, TestId, Verifies};
use crate::analysis::Analysis;
use crate::context::Context;
use crate::params::{ns, Overrides, DEFAULT_SEED};
use crate::precondition::Precondition;
use crate::result::{Report, TestResult};
use crate::saturation::SaturationAnalysis;
use crate::Result;
use crate::SuiteError;

/// The spec's threads, each with [`DEFAULTS`]' 32 IOs in flight.
pub const THREADS: u32 = 4;

/// T4Q32's depth per thread, the whole drive, and the spec's 24 hours.
pub const DEFAULTS: Defaults = Defaults {
    qd: 32,
    block_bytes: 4096,
    span: Span::Percent(100.0),
    duration_s: 24.0 * 3600.0,
};

/// The spec's bound: this many times the drive's capacity written.
pub const CAPACITIES: u64 = 4;

pub const TEST: Test = Test {
    id: TestId::Wsat,
    kind: Kind::Saturation,
    about: "PTS write-saturation (WSAT): purge, 4 KiB random writes at T4Q32 over the whole span \
            until 4x the capacity is written or 1440 minutes pass; IOPS per minute against time \
            and TGBW",
    defaults: Some(DEFAULTS),
    writes: super::always,
    takes_offset: false,
    takes_threads: true,
    takes_precondition: false,
    verifies: Verifies::OnRequest,
    run: |dev, ctx, o| Ok(vec![run(dev, ctx, o)?]),
};

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<TestResult> {
    let capacity = dev.geometry().capacity_bytes;
    let block = o.block_bytes.unwrap_or(DEFAULTS.block_bytes);
    let span = match o.span {
        Some(s) => s.resolve(capacity, block as u64),
        None => capacity,
    };
    let spec_bound = CAPACITIES * capacity;
    let bound = o.bytes.unwrap_or(spec_bound);
    let w = Workload {
        access: o.access.unwrap_or(Access::Random),
        block_bytes: block,
        offset_bytes: 0,
        span_bytes: span,
        read_pct: o.read_pct.unwrap_or(0),
        op: None,
        data: o.data.unwrap_or(DataKind::Incompressible),
        qd: o.qd.unwrap_or(DEFAULTS.qd),
        limit: Limit {
            duration_ns: Some(ns(o.duration_s.unwrap_or(DEFAULTS.duration_s))),
            ios: o.ios,
            bytes: Some(bound),
        },
        seed: o.seed.unwrap_or(DEFAULT_SEED),
        shape: Shape::default(),
        threads: o.threads.unwrap_or(THREADS),
    };
    if ctx.precondition != Precondition::Fill {
        return Err(SuiteError::Parameter(format!(
            "--precondition {}: wsat measures the way from a clean drive to saturation, so it \
             takes no preconditioning; drop --precondition",
            ctx.precondition
        )));
    }
    let mut report = Report::new(TestId::Wsat, "");
    let deviations = &mut report.deviations;
    if w.threads != THREADS {
        deviations.push(format!("{} threads instead of {THREADS}", w.threads));
    }
    // The bytes bound is the test's own: `--bytes` replaces it rather than adding one.
    DEFAULTS.note_overrides(
        deviations,
        &Overrides {
            bytes: None,
            ..o.clone()
        },
    );
    if bound != spec_bound {
        deviations.push(format!(
            "bounded at {} written instead of {CAPACITIES}x the capacity ({})",
            format_size(bound),
            format_size(spec_bound)
        ));
    }
    if o.span.is_some() {
        deviations.push(format!(
            "tested span {} instead of all {}",
            format_size(span),
            format_size(capacity)
        ));
    }
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

    #[test]
    fn the_record_is_the_spec() {
        assert_eq!(TestId::Wsat.name(), "wsat");
        assert_eq!(TestId::Wsat.kind(), Kind::Saturation);
        assert_eq!(super::super::find("wsat").unwrap().id, TestId::Wsat);
        let d = TEST.defaults.unwrap();
        assert_eq!((THREADS, d.qd, d.block_bytes), (4, 32, 4096));
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
