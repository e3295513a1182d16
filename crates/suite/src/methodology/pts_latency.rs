//! SNIA PTS 2.0.2 latency: random IO at 0.5, 4 and 8 KiB and three read/write mixes with one
//! IO in flight (T1Q1), a minute each per round, until the 4 KiB random write's mean response
//! time is steady; the table gives each cell's mean, five-nines and maximum response times
//! over the measurement window's IOs.

use engine::Device;

use super::{Kind, Options, Test, TestId};
use crate::context::Context;
use crate::params::Overrides;
use crate::pts::{Figure, Frame, Schedule, Stimulus};
use crate::result::TestResult;
use crate::Result;

/// The spec's block sizes, in the order this runs them.
pub const BLOCK_SIZES: [u32; 3] = [8 << 10, 4 << 10, 512];

/// The spec's read shares.
pub const MIXES: [u8; 3] = [100, 65, 0];

pub const TEST: Test = Test::pts(
    TestId::PtsLatency,
    Kind::Pts,
    "SNIA PTS 2.0.2 latency: purge, 2x capacity of 128 KiB sequential writes, then rounds \
        of random IO at 0.5/4/8 KiB x 100/0, 65/35, 0/100 at T1Q1 (a minute each) until RND \
        4KiB 0/100's mean response time is steady; mean, five-nines and maximum response \
        times over the 5-round window",
    Options::PTS.with(Options::QD).with(Options::SPAN),
    |dev, ctx, o| Ok(vec![run(dev, ctx, o)?]),
);

pub fn stimuli() -> Vec<Stimulus> {
    Stimulus::random_grid(&MIXES, &BLOCK_SIZES, 1, 1)
}

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<TestResult> {
    let frame = Frame::of(dev, o);
    let mut stimuli = stimuli();
    let what = "latency: RND 0.5/4/8KiB, 3 R/W mixes, T1Q1";
    let mut report = frame.report(TestId::PtsLatency, what, o);
    if let Some(qd) = o.qd.filter(|&q| q != 1) {
        report
            .deviations
            .push(format!("queue depth {qd} instead of the spec's 1"));
        stimuli.iter_mut().for_each(|s| s.qd = qd);
    }
    let tracking = stimuli
        .iter()
        .position(|s| s.block_bytes == 4096 && s.read_pct == 0)
        .expect("the spec's cells include RND 4KiB 0/100");
    let schedule = Schedule {
        name: "PTS latency",
        stimuli: &stimuli,
        tracking,
        figure: Figure::MeanLatency,
        histograms: false,
    };
    frame.check(dev, &stimuli, TestId::PtsLatency.name())?;
    frame.single(ctx, dev, report, &schedule)
}
