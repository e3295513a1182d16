//! SNIA PTS 2.0.2 composite block size workload (CBW, the enterprise composite workload): a
//! mix of block sizes from 0.5 to 64 KiB (4 KiB 67%), 40% reads, half the accesses to the
//! first 5% of the LBAs, 30% to the next 15% and 20% to the rest, at every thread count x
//! queue depth from T32Q32 down to T1Q1, a minute each per round, until T32Q32's IOPS is
//! steady; IOPS and response times of all 49 points over the window.

use engine::shape::{BlockMix, Distribution, Shape};
use engine::workload::Access;
use engine::Device;

use super::{Kind, Options, Test, TestId};
use crate::context::Context;
use crate::params::Overrides;
use crate::pts::{demand, Figure, Frame, Schedule, Stimulus};
use crate::result::TestResult;
use crate::Result;

/// The spec's block sizes and their shares of the accesses.
pub const BLOCK_MIX: &str =
    "512:4,1K:1,1536:1,2K:1,2560:1,3K:1,3584:1,4K:67,8K:10,16K:7,32K:3,64K:3";

/// The spec's hot spots: shares of the accesses to consecutive shares of the LBAs.
pub const DISTRIBUTION: &str = "zoned:50/5:30/15:20/80";

/// The spec's read share.
pub const READ_PCT: u8 = 40;

pub const TEST: Test = Test::pts(
    TestId::PtsCbw,
    Kind::Pts,
    "SNIA PTS 2.0.2 composite block size workload: purge, 2x capacity of 128 KiB \
        sequential writes, then rounds of the composite workload (0.5-64 KiB, 4 KiB 67%; \
        40/60 R/W; 50% of accesses to the first 5% of LBAs, 30% to the next 15%) at every \
        thread count x queue depth of {32,16,8,6,4,2,1} (a minute each) until T32Q32 is \
        steady",
    Options::PTS.with(Options::QD).with(Options::SPAN),
    |dev, ctx, o| Ok(vec![run(dev, ctx, o)?]),
);

/// The composite stimulus at one IO in flight.
pub fn composite() -> Stimulus {
    let mix: BlockMix = BLOCK_MIX.parse().expect("the spec's block-size mix parses");
    let distribution: Distribution = DISTRIBUTION.parse().expect("the spec's hot spots parse");
    Stimulus {
        access: Access::Random,
        block_bytes: 512,
        read_pct: READ_PCT,
        threads: 1,
        qd: 1,
        shape: Shape {
            distribution,
            block_mix: Some(mix),
            ..Shape::default()
        },
    }
}

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<TestResult> {
    let frame = Frame::of(dev, o);
    let stimuli = demand::sweep(&composite());
    let what = "composite workload: 0.5-64KiB mix, 40/60, hot spots, T1-32 x Q1-32";
    let report = frame.report(TestId::PtsCbw, what, o);
    let schedule = Schedule {
        name: "PTS CBW",
        stimuli: &stimuli,
        tracking: 0,
        figure: Figure::Iops,
        histograms: false,
    };
    frame.check(dev, &stimuli, TestId::PtsCbw.name())?;
    frame.single(ctx, dev, report, &schedule)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_composite_is_the_specs() {
        let c = composite();
        assert_eq!(c.label(), "RND composite 40/60");
        let mix = c.shape.block_mix.unwrap();
        assert_eq!(mix.largest(), 64 << 10);
    }
}
