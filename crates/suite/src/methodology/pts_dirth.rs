//! SNIA PTS 2.0.2 demand intensity / response time histogram (DIRTH): one block size and
//! read/write mix (4 KiB random writes unless `--bs` and `--read-pct` say otherwise) at every
//! thread count x queue depth from T32Q32 down to T1Q1, a minute each per round, until
//! T32Q32's IOPS is steady; IOPS and response times of all 49 points over the window.

use engine::shape::Shape;
use engine::workload::Access;
use engine::Device;

use super::{Kind, Options, Test, TestId};
use crate::context::Context;
use crate::params::Overrides;
use crate::pts::{demand, size_label, Figure, Frame, Schedule, Stimulus};
use crate::result::TestResult;
use crate::Result;

// The block size and mix are the operator's to choose; the rest is the spec's.
pub const TEST: Test = Test::pts(
    TestId::PtsDirth,
    Kind::Pts,
    "SNIA PTS 2.0.2 DIRTH: purge, 2x capacity of 128 KiB sequential writes, then rounds of \
        one workload (RND 4KiB 0/100, or --bs and --read-pct) at every thread count x queue \
        depth of {32,16,8,6,4,2,1} (a minute each) until T32Q32 is steady; demand variation, \
        demand intensity and response times of the 49 points",
    Options::PTS.with(Options::QD).with(Options::SPAN).with(Options::BS).with(Options::READ_PCT),
    |dev, ctx, o| Ok(vec![run(dev, ctx, o)?]),
);

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<TestResult> {
    let frame = Frame::of(dev, o);
    let template = Stimulus {
        access: Access::Random,
        block_bytes: o.block_bytes.unwrap_or(4096),
        read_pct: o.read_pct.unwrap_or(0),
        threads: 1,
        qd: 1,
        shape: Shape::default(),
    };
    let stimuli = demand::sweep(&template);
    let what = format!(
        "DIRTH: RND {} {}/{}, T1-32 x Q1-32",
        size_label(template.block_bytes),
        template.read_pct,
        100 - template.read_pct
    );
    let report = frame.report(TestId::PtsDirth, &what, o);
    let schedule = Schedule {
        name: "PTS DIRTH",
        stimuli: &stimuli,
        tracking: 0,
        figure: Figure::Iops,
        histograms: true,
    };
    frame.check(dev, &stimuli, TestId::PtsDirth.name())?;
    frame.single(ctx, dev, report, &schedule)
}
