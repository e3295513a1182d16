//! The 2018-2021 reviews' mixed tests: 4 KiB random at QD4, and 128 KiB sequential at QD1,
//! from all reads to all writes in steps of 10%, each for up to a minute or 32 GiB with no
//! idle between, over the drive state's region (`--state`). Their summary is the mean over
//! every share; the curve shows where a drive's mix falls below both its pure speeds.

use engine::shape::Shape;
use engine::workload::Access;
use engine::Device;

use super::queue_sweep::stepped_test;
use super::{Test, TestId};
use crate::context::Context;
use crate::params::Overrides;
use crate::result::TestResult;
use crate::steps::{Axis, Ground};
use crate::Result;

/// Read shares, in the order run: reads first, as the reviews ran them.
pub const READ_SHARES: [u8; 11] = [100, 90, 80, 70, 60, 50, 40, 30, 20, 10, 0];

pub const RANDOM: Test = stepped_test(
    TestId::MixedRandom,
    4,
    4096,
    "4 KiB random at QD4, 100% to 0% reads in 10% steps, each up to 1 minute or 32 GiB (2018-2021 reviews; --state empty|full)",
    |dev, ctx, o| run(TestId::MixedRandom, Access::Random, dev, ctx, o),
);
pub const SEQUENTIAL: Test = stepped_test(
    TestId::MixedSeq,
    1,
    128 << 10,
    "128 KiB sequential at QD1, 100% to 0% reads in 10% steps, each up to 1 minute or 32 GiB (2018-2021 reviews; --state empty|full)",
    |dev, ctx, o| run(TestId::MixedSeq, Access::Sequential, dev, ctx, o),
);

fn run(
    id: TestId,
    access: Access,
    dev: &mut dyn Device,
    ctx: &mut Context,
    o: &Overrides,
) -> Result<Vec<TestResult>> {
    let ground = Ground::prepare(id, access, ctx, dev, o)?;
    let qd = ground.defaults.qd;
    let steps = READ_SHARES
        .iter()
        .map(|&read_pct| {
            let w = ground.workload(read_pct, qd, ground.step_limit(o), Shape::default());
            (f64::from(read_pct), w)
        })
        .collect();
    let report = ground.report(id, &format!("mixed, QD{qd}"), o);
    Ok(vec![ground.stepped(Axis::ReadShare, None, steps, 0).run(ctx, dev, report)?])
}
