//! Power (docs/methodology.md section 8): the drive idle, slumbering with link power management,
//! and under 128 KiB sequential and 4 KiB random writes, in watts from a meter
//! (`--power-meter`) or, on a simulated drive, its energy model.
//!
//! ssdlab's choices where the articles are silent: idle and slumber rest 60 s and then
//! measure 60 s of idleness; the write tests start from a purged drive and run 60 s at QD32
//! (the worst case the reviews quote); the sequential write then measures 60 s of idleness,
//! the tail in which a drive may still fold its SLC cache ("the 1TB model kept drawing
//! ~3.5W for about a minute after I had stopped writing" [004]).

use serde::{Deserialize, Serialize};

use engine::pattern::DataKind;
use engine::power::Basis;
use engine::shape::Shape;
use engine::size::Span;
use engine::units::format_size;
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use super::{Defaults, Fixes, Kind, Options, ReviewSection, Test, TestId, Verifies};
use crate::analysis::Analysis;
use crate::context::Context;
use crate::params::{ns, region, Overrides, DEFAULT_SEED};
use crate::precondition;
use crate::result::{Parameters, Phase, PowerParameters, Report, TestResult};
use crate::Result;
use crate::SuiteError;

/// Idle before an idle measurement, so the drive has finished what it was doing.
pub const REST_S: f64 = 60.0;
/// Every measured phase, and the sequential write's tail.
pub const MEASURE_S: f64 = 60.0;
/// The sequential write's first part, while an SLC cache absorbs it [004].
pub const FIRST_PART_S: usize = 30;

/// The figures of a power test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PowerAnalysis {
    /// "idle", "slumber", "seq-write" or "random-write".
    pub state: String,
    /// Over the measured phase; `None`: power is missing (no reading at all).
    pub mean_w: Option<f64>,
    pub min_w: Option<f64>,
    pub max_w: Option<f64>,
    pub basis: Option<Basis>,
    /// Performance per watt, for the write tests.
    pub mbps_per_w: Option<f64>,
    pub iops_per_w: Option<f64>,
    /// The sequential write's first 30 s and the rest of it.
    pub first_30s_w: Option<f64>,
    pub after_30s_w: Option<f64>,
    /// The sequential write's burst: the second its throughput fell, or its power rose, for
    /// good (an SLC cache full; the consistency drop rule), and the mean watts before and
    /// after it.
    #[serde(default)]
    pub burst_s: Option<usize>,
    #[serde(default)]
    pub burst_w: Option<f64>,
    #[serde(default)]
    pub after_burst_w: Option<f64>,
    /// The sequential write's tail: the mean over as long after the writes stop (60 s), and its
    /// seconds.
    pub tail_w: Option<f64>,
    #[serde(default)]
    pub tail_watts: Vec<Option<f64>>,
    /// Idle and slumber: the host's link power management found, set and put back.
    pub link_power: Option<LinkPowerRecord>,
    /// Why power is missing or partial.
    pub missing: Option<String>,
}

/// What a power test did with the host's link power management.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkPowerRecord {
    /// Where it is set (a sysfs file, "sim:link_pm"); `None` when the target has none.
    pub control: Option<String>,
    pub found: Option<String>,
    /// What it was set to for the measurement (`None`: left as found).
    pub set: Option<String>,
    /// Whether the found setting was put back.
    pub restored: bool,
    /// Why it could not be found, set or put back.
    pub note: Option<String>,
}

/// The power tests, in the order the reviews charted them (and the suite runs them).
pub const TESTS: [TestId; 4] = [
    TestId::PowerIdle,
    TestId::PowerSlumber,
    TestId::PowerSeqWrite,
    TestId::PowerRandomWrite,
];

/// Idle and slumber: no workload, only the measured idleness's length.
const IDLE_DEFAULTS: Defaults = Defaults {
    qd: 0,
    block_bytes: 0,
    span: Span::Percent(100.0),
    duration_s: MEASURE_S,
};

pub const IDLE: Test = Test {
    id: TestId::PowerIdle,
    kind: Kind::IdlePower,
    section: Some(ReviewSection::Power),
    about: "power idle (active idle, no link power management): rest 60 s, measure 60 s; needs --power-meter on a real drive",
    defaults: Some(IDLE_DEFAULTS),
    writes: |_| false,
    takes: Options::WORKLOAD,
    fixes: Fixes::Nothing,
    verifies: Verifies::Never,
    run: |dev, ctx, o| Ok(vec![run(State::Idle, dev, ctx, o)?]),
};

pub const SLUMBER: Test = Test {
    id: TestId::PowerSlumber,
    kind: Kind::SlumberPower,
    section: Some(ReviewSection::Power),
    about: "slumber power with HIPM+DIPM (SATA) or APST (NVMe) set, and put back after: rest 60 s, measure 60 s",
    defaults: Some(IDLE_DEFAULTS),
    writes: |_| false,
    takes: Options::WORKLOAD,
    fixes: Fixes::Nothing,
    verifies: Verifies::Never,
    run: |dev, ctx, o| Ok(vec![run(State::Slumber, dev, ctx, o)?]),
};

pub const SEQ_WRITE: Test = Test {
    id: TestId::PowerSeqWrite,
    kind: Kind::LoadPower,
    section: Some(ReviewSection::Power),
    about: "power during 128 KiB sequential writes, QD32, 60 s on a purged drive, then 60 s idle (SLC folding); MB/s per W",
    defaults: Some(Defaults {
        qd: 32,
        block_bytes: 128 << 10,
        span: Span::Percent(100.0),
        duration_s: MEASURE_S,
    }),
    writes: super::always,
    takes: Options::WORKLOAD,
    fixes: Fixes::Nothing,
    verifies: Verifies::Never,
    run: |dev, ctx, o| Ok(vec![run(State::SeqWrite, dev, ctx, o)?]),
};

pub const RANDOM_WRITE: Test = Test {
    id: TestId::PowerRandomWrite,
    kind: Kind::LoadPower,
    section: Some(ReviewSection::Power),
    about: "power during 4 KiB random writes, QD32, 8 GiB span, 60 s on a purged drive; IOPS per W",
    defaults: Some(Defaults {
        qd: 32,
        block_bytes: 4096,
        span: Span::Bytes(8 << 30),
        duration_s: MEASURE_S,
    }),
    writes: super::always,
    takes: Options::WORKLOAD,
    fixes: Fixes::Nothing,
    verifies: Verifies::Never,
    run: |dev, ctx, o| Ok(vec![run(State::RandomWrite, dev, ctx, o)?]),
};

/// A power test: which state it measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Idle,
    Slumber,
    SeqWrite,
    RandomWrite,
}

impl State {
    fn test(self) -> &'static Test {
        match self {
            State::Idle => &IDLE,
            State::Slumber => &SLUMBER,
            State::SeqWrite => &SEQ_WRITE,
            State::RandomWrite => &RANDOM_WRITE,
        }
    }

    fn defaults(self) -> Defaults {
        self.test().defaults.expect("a power test has defaults")
    }

    fn name(self) -> &'static str {
        match self {
            State::Idle => "idle",
            State::Slumber => "slumber",
            State::SeqWrite => "seq-write",
            State::RandomWrite => "random-write",
        }
    }
}

pub fn run(
    state: State,
    dev: &mut dyn Device,
    ctx: &mut Context,
    o: &Overrides,
) -> Result<TestResult> {
    if ctx.meter.is_none() && dev.energy_j().is_none() {
        return Err(SuiteError::Unavailable(format!(
            "{}: software cannot measure a drive's power: give a meter with --power-meter \
             (cmd:PROGRAM printing watts, hwmon:SENSOR, powercap:ZONE, or nvme-states for the \
             NVMe power-state table as an estimate)",
            state.test().id
        )));
    }
    match state {
        State::Idle | State::Slumber => rest(state, dev, ctx, o),
        State::SeqWrite | State::RandomWrite => write(state, dev, ctx, o),
    }
}

/// Idle or slumber: set the link power management, rest, measure idleness, put it back.
fn rest(
    state: State,
    dev: &mut dyn Device,
    ctx: &mut Context,
    o: &Overrides,
) -> Result<TestResult> {
    let defaults = state.defaults();
    let duration = o.duration_s.unwrap_or(defaults.duration_s);
    let rest_s = o.rest_s.unwrap_or(REST_S);
    let slumber = state == State::Slumber;
    let mut report = Report::new(
        state.test().id,
        if slumber {
            format!("slumber power (HIPM+DIPM / APST), idle {duration} s after {rest_s} s")
        } else {
            format!("idle power (active idle), {duration} s after {rest_s} s")
        },
    );
    defaults.note_overrides(&mut report.deviations, o);
    if rest_s != REST_S {
        report
            .deviations
            .push(format!("rest {rest_s} s instead of {REST_S} s"));
    }
    let mut link = set_link_power(dev, slumber);
    if let Some(note) = link.note.clone() {
        ctx.observer.note(&note);
        if slumber {
            report.deviations.push(format!(
                "link power management not enabled ({note}): this is idle power, not slumber"
            ));
        }
    }
    let rested = ctx.idle(dev, ns(rest_s), &format!("{}: rest", state.name()))?;
    report.preconditioning.push(Phase {
        name: "rest".into(),
        description: format!("idle for {rest_s} s before measuring"),
        method: None,
        summary: Some(rested.measurements.summary.clone()),
        complete: rested.stopped.is_none(),
    });
    let outcome = if rested.stopped.is_none() {
        ctx.idle(dev, ns(duration), &format!("{}: measure", state.name()))?
    } else {
        rested
    };
    restore_link_power(dev, &mut link);
    if let Some(note) = link.note.as_ref().filter(|_| !link.restored) {
        ctx.observer.note(note);
    }
    let mut a = analysis(state, &outcome);
    a.link_power = Some(link);
    report.analysis = Analysis::Power(a);
    let parameters = Parameters::Power(PowerParameters {
        state: state.name().into(),
        rest_s,
        duration_s: duration,
    });
    Ok(complete_only_with_power(
        report.finish_with(dev, parameters, outcome),
    ))
}

/// Power is what a power test measures: with any of it missing, the result is incomplete
/// (it keeps what was read).
fn complete_only_with_power(mut r: TestResult) -> TestResult {
    let whole = r
        .power
        .as_ref()
        .is_some_and(|p| p.summary.is_some() && p.missing.is_none());
    r.complete &= whole;
    r
}

/// Sequential or random writes on a purged drive; the sequential write's tail after.
fn write(
    state: State,
    dev: &mut dyn Device,
    ctx: &mut Context,
    o: &Overrides,
) -> Result<TestResult> {
    let geo = dev.geometry();
    let seq = state == State::SeqWrite;
    let defaults = state.defaults();
    let block = o.block_bytes.unwrap_or(defaults.block_bytes);
    let (offset, span_bytes) = region(o, defaults.span, geo.capacity_bytes, block)?;
    let duration = o.duration_s.unwrap_or(defaults.duration_s);
    let w = Workload {
        access: o.access.unwrap_or(if seq {
            Access::Sequential
        } else {
            Access::Random
        }),
        block_bytes: block,
        offset_bytes: offset,
        span_bytes,
        read_pct: 0,
        op: None,
        data: o.data.unwrap_or(DataKind::Incompressible),
        qd: o.qd.unwrap_or(defaults.qd),
        limit: Limit {
            duration_ns: Some(ns(duration)),
            ios: o.ios,
            bytes: o.bytes,
        },
        seed: o.seed.unwrap_or(DEFAULT_SEED),
        shape: Shape::default(),
        threads: 1,
    };
    let mut report = Report::new(
        state.test().id,
        format!(
            "power during {} {} writes, QD{}, {}, {duration} s",
            format_size(block as u64),
            if seq { "sequential" } else { "random" },
            w.qd,
            format_size(span_bytes),
        ),
    );
    defaults.note_overrides(&mut report.deviations, o);
    report
        .preconditioning
        .push(precondition::purge(ctx, dev, 0, geo.capacity_bytes));
    let outcome = ctx.drive(dev, &w, &report.label, true)?;
    let mut a = analysis(state, &outcome);
    if seq && outcome.stopped.is_none() {
        let tail = ctx.idle(dev, ns(duration), "seq-write: the tail, idle after writing")?;
        let watts: Vec<Option<f64>> = tail
            .measurements
            .per_second
            .iter()
            .map(|p| p.watts)
            .collect();
        a.tail_w = tail.power.as_ref().and_then(|p| p.mean_w());
        a.tail_watts = watts;
        report.preconditioning.push(Phase {
            name: "tail".into(),
            description: format!(
                "idle for {duration} s after the writes (not part of the write's figures)"
            ),
            method: None,
            summary: Some(tail.measurements.summary.clone()),
            complete: tail.stopped.is_none(),
        });
    }
    report.analysis = Analysis::Power(a);
    Ok(complete_only_with_power(report.finish(dev, &w, outcome)))
}

/// The figures of a measured phase.
fn analysis(state: State, outcome: &engine::driver::Outcome) -> PowerAnalysis {
    let power = outcome.power.as_ref();
    let summary = power.and_then(|p| p.summary);
    let mean_w = summary.map(|s| s.mean_w);
    let m = &outcome.measurements;
    let writes = matches!(state, State::SeqWrite | State::RandomWrite);
    let per_w = |v: f64| mean_w.filter(|&w| writes && w > 0.0).map(|w| v / w);
    let seconds: Vec<Option<f64>> = m.per_second.iter().map(|p| p.watts).collect();
    let part = |range: std::ops::Range<usize>| mean_of(seconds.get(range).unwrap_or(&[]));
    let seq = state == State::SeqWrite;
    // The burst ends where throughput falls for good or, on a drive whose array keeps the
    // link's pace, where power steps up for good (a fall of its inverse): "2.2W and 2.5W
    // for up to 30 seconds or so until it jumped to over 4W" [004].
    let mbps: Vec<f64> = m.per_second.iter().map(|p| p.mbps).collect();
    let inverse_watts: Option<Vec<f64>> = seconds
        .iter()
        .map(|w| w.filter(|&w| w > 0.0).map(|w| 1.0 / w))
        .collect();
    let burst_s = seq
        .then(|| {
            crate::stats::find_drop(&mbps)
                .or_else(|| crate::stats::find_drop(inverse_watts.as_deref()?))
                .map(|d| d.at_s)
        })
        .flatten();
    let missing = match power {
        None => Some(
            "no power: give a meter with --power-meter (a simulated drive models its own)"
                .to_string(),
        ),
        Some(p) => p
            .missing
            .as_ref()
            .map(|m| format!("missing from {:.1} s: {}", m.from_s, m.reason)),
    };
    PowerAnalysis {
        state: state.name().into(),
        mean_w,
        min_w: summary.map(|s| s.min_w),
        max_w: summary.map(|s| s.max_w),
        basis: power.map(|p| p.basis),
        mbps_per_w: per_w(m.summary.mbps),
        iops_per_w: per_w(m.summary.iops),
        first_30s_w: seq
            .then(|| part(0..FIRST_PART_S.min(seconds.len())))
            .flatten(),
        after_30s_w: seq
            .then(|| part(FIRST_PART_S.min(seconds.len())..seconds.len()))
            .flatten(),
        burst_s,
        burst_w: burst_s.and_then(|t| part(0..t)),
        after_burst_w: burst_s.and_then(|t| part(t..seconds.len())),
        tail_w: None,
        tail_watts: Vec::new(),
        link_power: None,
        missing,
    }
}

/// The mean of the seconds that have power; `None` when none has.
fn mean_of(watts: &[Option<f64>]) -> Option<f64> {
    let known: Vec<f64> = watts.iter().flatten().copied().collect();
    (!known.is_empty()).then(|| known.iter().sum::<f64>() / known.len() as f64)
}

/// Let the drive slumber when idle (`slumber`) or keep it in active idle, recording what
/// was found. A target without link power management is measured as it is.
pub(crate) fn set_link_power(dev: &mut dyn Device, slumber: bool) -> LinkPowerRecord {
    let control = match dev.link_power() {
        Ok(c) => c,
        Err(why) => {
            return LinkPowerRecord {
                control: None,
                found: None,
                set: None,
                restored: true,
                note: Some(why.to_string()),
            }
        }
    };
    let want = if slumber {
        &control.slumber
    } else {
        &control.active
    };
    let mut record = LinkPowerRecord {
        control: Some(control.control.clone()),
        found: Some(control.value.clone()),
        set: None,
        restored: true,
        note: None,
    };
    // "Found" already allows what is wanted: an NVMe APST tolerance other than the
    // default still enables APST, so it is left as the user set it.
    if control.allows_slumber() == slumber {
        return record;
    }
    match dev.set_link_power(want) {
        Ok(()) => {
            record.set = Some(want.clone());
            record.restored = false;
        }
        Err(e) => record.note = Some(format!("cannot set {}: {e}", control.control)),
    }
    record
}

/// Put back the setting [`set_link_power`] found.
pub(crate) fn restore_link_power(dev: &mut dyn Device, record: &mut LinkPowerRecord) {
    let (Some(_), Some(found)) = (&record.set, &record.found) else {
        return;
    };
    match dev.set_link_power(found) {
        Ok(()) => record.restored = true,
        Err(e) => {
            record.note = Some(format!(
                "could not put link power management back to '{found}': {e}; set it by hand"
            ))
        }
    }
}
