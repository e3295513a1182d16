//! SNIA PTS 2.0.2 IOPS: random IO at eight block sizes and seven read/write mixes, each for a
//! minute per round, until the 4 KiB random write's IOPS is steady; the table is the
//! measurement window's mean IOPS of every cell.


use super::{Kind, Options, Test, TestId};
use crate::context::Context;
use crate::params::Overrides;
use crate::pts::{Figure, Frame, Schedule, Stimulus};
use crate::result::TestResult;
use crate::Result;
use engine::Device;

/// The spec's block sizes, in the order it runs them.
pub const BLOCK_SIZES: [u32; 8] = [
    1 << 20,
    128 << 10,
    64 << 10,
    32 << 10,
    16 << 10,
    8 << 10,
    4 << 10,
    512,
];

/// The spec's read shares (100 is 100/0), in its order.
pub const MIXES: [u8; 7] = [100, 95, 65, 50, 35, 5, 0];

pub const TEST: Test = Test::pts(
    TestId::PtsIops,
    Kind::Pts,
    "SNIA PTS 2.0.2 IOPS: purge, 2x capacity of 128 KiB sequential writes, then rounds of \
        random IO at 0.5-1024 KiB x 7 read/write mixes (a minute each) until RND 4KiB 0/100 \
        is steady; IOPS over the 5-round window (--pts client|enterprise, --pts-scale)",
    Options::PTS.with(Options::QD).with(Options::SPAN).with(Options::THREADS),
    |dev, ctx, o| Ok(vec![run(dev, ctx, o)?]),
);

/// Every cell at `threads` x `qd`, in the spec's order.
pub fn stimuli(threads: u32, qd: u32) -> Vec<Stimulus> {
    Stimulus::random_grid(&MIXES, &BLOCK_SIZES, threads, qd)
}

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<TestResult> {
    let frame = Frame::of(dev, o);
    let (threads, qd) = frame.variant.load();
    let (threads, qd) = (o.threads.unwrap_or(threads), o.qd.unwrap_or(qd));
    let stimuli = stimuli(threads, qd);
    let tracking = stimuli
        .iter()
        .position(|s| s.block_bytes == 4096 && s.read_pct == 0)
        .expect("the spec's cells include RND 4KiB 0/100");
    let what = format!("IOPS: RND 0.5-1024KiB, 7 R/W mixes, T{threads}Q{qd}");
    let report = frame.report(TestId::PtsIops, &what, o);
    let schedule = Schedule {
        name: "PTS IOPS",
        stimuli: &stimuli,
        tracking,
        figure: Figure::Iops,
        histograms: false,
    };
    frame.check(dev, &stimuli, TestId::PtsIops.name())?;
    frame.single(ctx, dev, report, &schedule)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_matrix_is_the_specs() {
        let s = stimuli(4, 32);
        assert_eq!(s.len(), 56);
        assert_eq!(s[0].label(), "RND 1024KiB 100/0");
        assert_eq!(s[55].label(), "RND 0.5KiB 0/100");
        assert_eq!(TestId::PtsIops.name(), "pts-iops");
    }
}
