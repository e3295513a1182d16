//! The 2018-2021 reviews' random and sequential tests (4 KiB random, 128 KiB sequential; read
//! and write): bursts at QD1 with the drive idle 80% of the time, the speed a light desktop
//! load sees; then sustained at queue depths 1 to 32, each for up to a minute or 32 GiB with
//! as long idle after it, over the drive state's region (`--state`). Their summary is the
//! mean of QD1, QD2 and QD4, the depths a client drive mostly sees.
//!
//! The reviews did not publish every constant; ssdlab's reading: bursts of 32 MiB (random) or
//! 128 MiB (sequential) at 20% busy, up to 1 GiB in all; the idle after each depth as long
//! as the depth's own run.

use engine::shape::{DutyCycle, Shape};
use engine::size::Span;
use engine::workload::{Access, Limit};
use engine::Device;

use super::{Defaults, Fixes, Kind, Options, Test, TestId, Verifies};
use crate::context::Context;
use crate::drive_state::EMPTY_SPAN_BYTES;
use crate::params::{ns, Overrides};
use crate::result::TestResult;
use crate::steps::{Axis, Ground};
use crate::Result;

/// The sustained phase's queue depths.
pub const DEPTHS: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// The bursts' share of busy time, and their total.
pub const BURST_BUSY_PCT: f64 = 20.0;
pub const BURST_TOTAL_BYTES: u64 = 1 << 30;

/// A stepped test's record: `qd` (0: the steps set it) and `block_bytes` over the nearly
/// empty drive's region, a minute a step; `--state` chooses the drive's state.
pub(super) const fn stepped_test(
    id: TestId,
    qd: u32,
    block_bytes: u32,
    about: &'static str,
    run: super::Run,
) -> Test {
    Test {
        id,
        kind: Kind::Steps,
        section: None,
        about,
        defaults: Some(Defaults {
            qd,
            block_bytes,
            span: Span::Bytes(EMPTY_SPAN_BYTES),
            duration_s: 60.0,
        }),
        writes: super::always,
        takes: Options::WORKLOAD.without(Options::QD.with(Options::ACCESS).with(Options::READ_PCT).with(Options::SPAN)).with(Options::STATE),
        fixes: Fixes::Own {
            why: "{test} runs its own steps (queue depths or read shares) over the region its \
                  drive state sets",
            then: " (choose the state with --state empty|full), or use `ssdlab run custom`",
        },
        verifies: Verifies::Never,
        run,
    }
}

const fn test(id: TestId, about: &'static str, run: super::Run) -> Test {
    let block_bytes = match id {
        TestId::SweepSeqRead | TestId::SweepSeqWrite => 128 << 10,
        _ => 4096,
    };
    stepped_test(id, 0, block_bytes, about, run)
}

pub const RANDOM_READ: Test = test(
    TestId::SweepRandomRead,
    "4 KiB random reads: 32 MiB bursts at 20% busy, then queue depths 1 to 32, each up to 1 minute or 32 GiB (2018-2021 reviews; --state empty|full)",
    |dev, ctx, o| run(TestId::SweepRandomRead, Access::Random, 100, dev, ctx, o),
);
pub const RANDOM_WRITE: Test = test(
    TestId::SweepRandomWrite,
    "4 KiB random writes: 32 MiB bursts at 20% busy, then queue depths 1 to 32, each up to 1 minute or 32 GiB (2018-2021 reviews; --state empty|full)",
    |dev, ctx, o| run(TestId::SweepRandomWrite, Access::Random, 0, dev, ctx, o),
);
pub const SEQ_READ: Test = test(
    TestId::SweepSeqRead,
    "128 KiB sequential reads: 128 MiB bursts at 20% busy, then queue depths 1 to 32, each up to 1 minute or 32 GiB (2018-2021 reviews; --state empty|full)",
    |dev, ctx, o| run(TestId::SweepSeqRead, Access::Sequential, 100, dev, ctx, o),
);
pub const SEQ_WRITE: Test = test(
    TestId::SweepSeqWrite,
    "128 KiB sequential writes: 128 MiB bursts at 20% busy, then queue depths 1 to 32, each up to 1 minute or 32 GiB (2018-2021 reviews; --state empty|full)",
    |dev, ctx, o| run(TestId::SweepSeqWrite, Access::Sequential, 0, dev, ctx, o),
);

fn run(
    id: TestId,
    access: Access,
    read_pct: u8,
    dev: &mut dyn Device,
    ctx: &mut Context,
    o: &Overrides,
) -> Result<Vec<TestResult>> {
    let ground = Ground::prepare(id, access, ctx, dev, o)?;
    let step_s = ground.step_s(o);
    let duty = DutyCycle {
        burst_bytes: if access == Access::Random { 32 << 20 } else { 128 << 20 },
        busy_pct: BURST_BUSY_PCT,
    };
    // Bounded by its bytes, or by the time a step takes for each busy second.
    let burst_limit = Limit {
        bytes: Some(BURST_TOTAL_BYTES.min(ground.span_bytes())),
        duration_ns: Some(ns(step_s * 100.0 / BURST_BUSY_PCT)),
        ios: None,
    };
    let burst_shape = Shape {
        duty_cycle: Some(duty),
        ..Shape::default()
    };
    let burst = ground.workload(read_pct, 1, burst_limit, burst_shape);
    let steps = DEPTHS
        .iter()
        .map(|&qd| {
            let w = ground.workload(read_pct, qd, ground.step_limit(o), Shape::default());
            (f64::from(qd), w)
        })
        .collect();
    let direction = if read_pct == 100 { "read" } else { "write" };
    let report = ground.report(id, direction, o);
    let stepped = ground.stepped(Axis::QueueDepth, Some(burst), steps, ns(step_s));
    Ok(vec![stepped.run(ctx, dev, report)?])
}
