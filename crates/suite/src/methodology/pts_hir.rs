//! SNIA PTS 2.0.2 host idle recovery (HIR): from the 4 KiB random write steady state, bursts
//! of 5 s of writes each followed by idle time (wait states of 5, 10, 15, 25 and 50 s, 360
//! bursts each), each wait state followed by 1800 s of continuous writes (the return to
//! baseline): whether and how much the drive uses idle time to recover.

use engine::shape::Shape;
use engine::workload::Access;
use engine::Device;

use super::{Kind, Options, Test, TestId};
use crate::analysis::Analysis;
use crate::context::Context;
use crate::params::{ns, Overrides};
use crate::pts::{Figure, Frame, Schedule, Stimulus};
use crate::recovery::{Point, RecoveryAnalysis, Segment, Timeline};
use crate::result::{Phase, TestResult};
use crate::Result;

pub const BURST_S: f64 = 5.0;
/// The idle after each burst, one wait state each.
pub const WAIT_STATES_S: [f64; 5] = [5.0, 10.0, 15.0, 25.0, 50.0];
pub const BURSTS: u32 = 360;
pub const BASELINE_S: f64 = 1800.0;

pub const TEST: Test = Test::pts(
    TestId::PtsHir,
    Kind::Recovery,
    "SNIA PTS 2.0.2 host idle recovery: purge, 2x capacity of 128 KiB sequential writes, \
        4 KiB random writes to steady state, then for idle times of 5, 10, 15, 25 and 50 s: \
        360 bursts of 5 s of writes each followed by the idle time, and 1800 s of continuous \
        writes; IOPS of every burst against time",
    Options::PTS.with(Options::QD).with(Options::SPAN).with(Options::THREADS),
    |dev, ctx, o| Ok(vec![run(dev, ctx, o)?]),
);

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<TestResult> {
    let frame = Frame::of(dev, o);
    let (threads, qd) = frame.variant.load();
    let stimulus = Stimulus {
        access: Access::Random,
        block_bytes: 4096,
        read_pct: 0,
        threads: o.threads.unwrap_or(threads),
        qd: o.qd.unwrap_or(qd),
        shape: Shape::default(),
    };
    let what = format!(
        "host idle recovery: RND 4KiB writes, T{}Q{}, idle 5-50 s",
        stimulus.threads, stimulus.qd
    );
    let mut report = frame.report(TestId::PtsHir, &what, o);
    frame.check(dev, std::slice::from_ref(&stimulus), TestId::PtsHir.name())?;
    let schedule = Schedule {
        name: "PTS HIR steady state",
        stimuli: std::slice::from_ref(&stimulus),
        tracking: 0,
        figure: Figure::Iops,
        histograms: false,
    };
    let ran = match frame.sequence(ctx, dev, &mut report, &schedule)? {
        Ok(ran) => ran,
        Err((w, outcome)) => return Ok(report.finish(dev, &w, outcome)),
    };
    let stopped = ran.stopped();
    let (steady, last) = ran.into_parts();
    let baseline = steady.tracked();
    report.preconditioning.push(Phase {
        name: "steady state".into(),
        description: format!(
            "RND 4KiB writes in rounds of {} s: {baseline:.0} IOPS over rounds {}-{}{}",
            frame.round_s,
            steady.window.0,
            steady.window.1,
            match steady.reached {
                true => "",
                false => " (steady state not reached)",
            }
        ),
        method: None,
        summary: Some(last.1.measurements.summary.clone()),
        complete: !stopped,
    });
    if stopped {
        return Ok(report.finish(dev, &last.0, last.1));
    }

    let mut clock = Timeline::default();
    let bursts = ((BURSTS as f64 * frame.scale).round() as u32).max(1);
    let baseline_s = (BASELINE_S * frame.scale).max(BURST_S);
    let mut segments = Vec::new();
    let mut last = last;
    'states: for (state, idle_s) in WAIT_STATES_S.into_iter().enumerate() {
        let mut points = Vec::with_capacity(bursts as usize);
        for b in 0..bursts {
            let w = frame.workload(&stimulus, BURST_S, clock.runs);
            let label = format!("PTS HIR wait state {}: burst {}", state + 1, b + 1);
            let outcome = ctx.drive(dev, &w, &label, true)?;
            let s = &outcome.measurements.summary;
            points.push(Point {
                t_s: clock.now_s,
                iops: s.iops,
                mbps: s.mbps,
            });
            clock.ran(&outcome);
            let stopped = outcome.stopped.is_some();
            last = (w, outcome);
            if stopped {
                segments.push(wait_state(idle_s, points));
                break 'states;
            }
            let label = format!("PTS HIR wait state {}: idle", state + 1);
            let rest = ctx.idle(dev, ns(idle_s), &label)?;
            clock.idled(&rest);
            if rest.stopped.is_some() {
                segments.push(wait_state(idle_s, points));
                last.1.stopped = rest.stopped;
                break 'states;
            }
        }
        segments.push(wait_state(idle_s, points));
        let w = frame.workload(&stimulus, baseline_s, clock.runs);
        let label = format!("PTS HIR return to baseline {}", state + 1);
        let outcome = ctx.drive(dev, &w, &label, true)?;
        segments.push(Segment::continuous(
            format!("return to baseline after {idle_s} s idle"),
            clock.now_s,
            &outcome.measurements.per_second,
        ));
        clock.ran(&outcome);
        let stopped = outcome.stopped.is_some();
        last = (w, outcome);
        if stopped {
            break;
        }
    }
    report.analysis = Analysis::Recovery(RecoveryAnalysis {
        figure: Figure::Iops,
        baseline_iops: Some(baseline),
        steady_state: Some(steady),
        segments,
    });
    let mut result = report.finish(dev, &last.0, last.1);
    result.per_second = clock.per_second;
    Ok(result)
}

fn wait_state(idle_s: f64, points: Vec<Point>) -> Segment {
    Segment::of(
        format!("5 s writes, {idle_s} s idle"),
        Some(idle_s),
        points,
    )
}
