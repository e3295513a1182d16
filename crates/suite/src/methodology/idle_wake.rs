//! Idle wake-up latency (the 2018-2021 reviews): what a drive's low-power state costs the
//! first IO after a pause. With the host's link power management on (SATA HIPM+DIPM, NVMe
//! APST), the drive rests, then one 4 KiB random read at QD1 is timed, ten times; against the
//! same reads back to back, awake. A drive that slumbers shows its exit latency here; one
//! that does not shows none.

use serde::{Deserialize, Serialize};

use engine::pattern::DataKind;
use engine::shape::Shape;
use engine::size::Span;
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use super::power::{restore_link_power, set_link_power, LinkPowerRecord};
use super::{Defaults, Fixes, Kind, Options, Test, TestId, Verifies};
use crate::analysis::Analysis;
use crate::context::Context;
use crate::params::{ns, Overrides, DEFAULT_SEED};
use crate::precondition;
use crate::result::{Phase, Report, TestResult};
use crate::Result;

/// Reads after a rest, each timed alone.
pub const WAKES: u32 = 10;
/// The rest before each (`--rest`): longer than any drive's wait before it enters its
/// low-power state.
pub const REST_S: f64 = 5.0;
/// The awake reads, back to back.
pub const AWAKE_READS: u64 = 1000;

pub const DEFAULTS: Defaults = Defaults {
    qd: 1,
    block_bytes: 4096,
    span: Span::Bytes(1 << 30),
    duration_s: 0.0,
};

pub const TEST: Test = Test {
    id: TestId::IdleWake,
    kind: Kind::Wake,
    section: None,
    about: "idle wake-up latency: link power management on, 10 times a rest of 5 s then one 4 KiB random read at QD1, against 1000 such reads back to back (2018-2021 reviews)",
    defaults: Some(DEFAULTS),
    writes: super::always,
    takes: Options::WORKLOAD.without(Options::QD.with(Options::ACCESS).with(Options::READ_PCT)),
    fixes: Fixes::Own {
        why: "{test} times single reads at QD1",
        then: "",
    },
    verifies: Verifies::Never,
    run: |dev, ctx, o| Ok(vec![run(dev, ctx, o)?]),
};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WakeAnalysis {
    pub rest_s: f64,
    /// Each read after a rest, in microseconds.
    pub wake_us: Vec<f64>,
    pub wake_mean_us: f64,
    pub wake_max_us: f64,
    /// The reads back to back.
    pub awake_mean_us: f64,
    pub awake_p99_us: f64,
    /// Wake-ups the drive counted, where it counts them (the simulator).
    pub wakeups: Option<u64>,
    pub link_power: LinkPowerRecord,
}

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<TestResult> {
    let capacity = dev.geometry().capacity_bytes;
    let block = o.block_bytes.unwrap_or(DEFAULTS.block_bytes);
    let span = o.span.unwrap_or(DEFAULTS.span).resolve(capacity, block.into());
    let rest_s = o.rest_s.unwrap_or(REST_S);
    let seed = o.seed.unwrap_or(DEFAULT_SEED);
    let data = o.data.unwrap_or(DataKind::Incompressible);
    let mut report = Report::new(
        TestId::IdleWake,
        format!("idle wake-up: 4 KiB random reads at QD1, awake and after {rest_s} s of rest"),
    );
    DEFAULTS.note_overrides(&mut report.deviations, o);
    if rest_s != REST_S {
        report
            .deviations
            .push(format!("rest {rest_s} s instead of {REST_S} s"));
    }
    let reads = |ios: u64, seed: u64| Workload {
        access: Access::Random,
        block_bytes: block,
        offset_bytes: 0,
        span_bytes: span,
        read_pct: 100,
        op: None,
        data,
        qd: 1,
        threads: 1,
        limit: Limit {
            ios: Some(ios),
            ..Limit::default()
        },
        seed,
        shape: Shape::default(),
    };
    let (fill, filled) = precondition::fill(ctx, dev, 0, span, data, seed, None)?;
    report.preconditioning.push(fill);
    if filled.stopped.is_some() {
        return Ok(report.finish(dev, &reads(AWAKE_READS, seed), filled));
    }
    let mut link = set_link_power(dev, true);
    if let Some(note) = link.note.clone() {
        ctx.observer.note(&note);
        report.deviations.push(format!(
            "link power management not enabled ({note}): the drive may never have slept"
        ));
    }
    let measured = wake_up(ctx, dev, rest_s, &reads, seed);
    restore_link_power(dev, &mut link);
    if let Some(note) = link.note.as_ref().filter(|_| !link.restored) {
        ctx.observer.note(note);
    }
    let (awake, wake_us, wakeups) = measured?;
    let Some(a) = awake.measurements.summary.read.clone().filter(|_| !wake_us.is_empty()) else {
        return Ok(report.finish(dev, &reads(AWAKE_READS, seed), awake));
    };
    report.preconditioning.push(Phase {
        name: "wake-ups".into(),
        description: format!("{} reads, each after {rest_s} s of rest", wake_us.len()),
        method: None,
        summary: None,
        complete: wake_us.len() == WAKES as usize,
    });
    report.analysis = Analysis::Wake(WakeAnalysis {
        rest_s,
        wake_mean_us: wake_us.iter().sum::<f64>() / wake_us.len() as f64,
        wake_max_us: wake_us.iter().copied().fold(0.0, f64::max),
        wake_us,
        awake_mean_us: a.latency_us.mean,
        awake_p99_us: a.latency_us.p99,
        wakeups,
        link_power: link,
    });
    Ok(report.finish(dev, &reads(AWAKE_READS, seed), awake))
}

/// The reads back to back, then each read after a rest: (the awake run, each woken read's
/// latency, the wake-ups the drive counted over the rests).
fn wake_up(
    ctx: &mut Context,
    dev: &mut dyn Device,
    rest_s: f64,
    reads: &dyn Fn(u64, u64) -> Workload,
    seed: u64,
) -> Result<(engine::driver::Outcome, Vec<f64>, Option<u64>)> {
    let awake = ctx.drive(dev, &reads(AWAKE_READS, seed), "reads back to back", true)?;
    let mut wake_us = Vec::new();
    if awake.stopped.is_some() {
        return Ok((awake, wake_us, None));
    }
    let wakeups_now = |dev: &dyn Device| Some(dev.counters()?.sim()?.energy.wakeups);
    let before = wakeups_now(dev);
    for i in 0..WAKES {
        let rested = ctx.idle(dev, ns(rest_s), &format!("rest {}/{WAKES}", i + 1))?;
        if rested.stopped.is_some() {
            break;
        }
        let w = reads(1, seed + 1 + u64::from(i));
        let one = ctx.drive(dev, &w, &format!("read after rest {}/{WAKES}", i + 1), false)?;
        let Some(read) = one.measurements.summary.read.as_ref().filter(|_| one.stopped.is_none())
        else {
            break;
        };
        wake_us.push(read.latency_us.max);
    }
    let wakeups = before.zip(wakeups_now(dev)).map(|(b, a)| a - b);
    Ok((awake, wake_us, wakeups))
}
