//! SNIA PTS 2.0.2 cross-stimulus recovery (XSR): from a purged drive, an hour of 1024 KiB
//! sequential writes, an hour of 8 KiB random writes, and an hour of 1024 KiB sequential
//! writes again, one thread of 32 IOs: how the drive moves from one stimulus to the next and
//! how long it takes to settle after each change.

use engine::shape::Shape;
use engine::workload::Access;
use engine::Device;

use super::{Kind, Options, Test, TestId};
use crate::analysis::Analysis;
use crate::context::Context;
use crate::params::Overrides;
use crate::pts::{Figure, Frame, Stimulus};
use crate::recovery::{RecoveryAnalysis, Segment, Timeline};
use crate::result::TestResult;
use crate::Result;

/// Each stimulus's hour.
pub const SEGMENT_S: f64 = 3600.0;

pub const QD: u32 = 32;

pub const TEST: Test = Test::pts(
    TestId::PtsXsr,
    Kind::Recovery,
    "SNIA PTS 2.0.2 cross-stimulus recovery: purge, then an hour each of SEQ 1024KiB \
        writes, RND 8KiB writes and SEQ 1024KiB writes at T1Q32; MB/s against time and \
        how long each change takes to settle",
    Options::PTS.with(Options::QD).with(Options::SPAN),
    |dev, ctx, o| Ok(vec![run(dev, ctx, o)?]),
);

/// The three stimuli, in order.
pub fn stimuli(qd: u32) -> [Stimulus; 3] {
    let writes = |access, block_bytes| Stimulus {
        access,
        block_bytes,
        read_pct: 0,
        threads: 1,
        qd,
        shape: Shape::default(),
    };
    [
        writes(Access::Sequential, 1 << 20),
        writes(Access::Random, 8 << 10),
        writes(Access::Sequential, 1 << 20),
    ]
}

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<TestResult> {
    let frame = Frame::of(dev, o);
    let qd = o.qd.unwrap_or(QD);
    let what =
        format!("cross-stimulus recovery: SEQ 1024KiB, RND 8KiB, SEQ 1024KiB writes, T1Q{qd}");
    let mut report = frame.report(TestId::PtsXsr, &what, o);
    frame.check(dev, &stimuli(qd), TestId::PtsXsr.name())?;
    frame.purge(ctx, dev, &mut report)?;
    let seconds = o.duration_s.unwrap_or(SEGMENT_S * frame.scale);
    let mut timeline = Timeline::default();
    let mut segments = Vec::new();
    let mut last = None;
    for (i, s) in stimuli(qd).iter().enumerate() {
        let w = frame.workload(s, seconds, timeline.runs);
        let label = format!("PTS XSR {}: {}", i + 1, s.label());
        let outcome = ctx.drive(dev, &w, &label, true)?;
        segments.push(Segment::continuous(
            s.label(),
            timeline.now_s,
            &outcome.measurements.per_second,
        ));
        timeline.ran(&outcome);
        let stopped = outcome.stopped.is_some();
        last = Some((w, outcome));
        if stopped {
            break;
        }
    }
    report.analysis = Analysis::Recovery(RecoveryAnalysis {
        figure: Figure::Mbps,
        baseline_iops: None,
        steady_state: None,
        segments,
    });
    let (w, outcome) = last.expect("the first segment runs");
    let mut result = report.finish(dev, &w, outcome);
    result.per_second = timeline.per_second;
    Ok(result)
}
