//! The 2018-2021 reviews' random and sequential tests (4 KiB random, 128 KiB sequential; read
//! and write): bursts at QD1 with the drive idle 80% of the time, the speed a light desktop
//! load sees; then sustained at queue depths 1 to 32, each for up to a minute or 32 GiB with
//! as long idle after it, over the drive state's region (`--state`). Their summary is the
//! mean of QD1, QD2 and QD4, the depths a client drive mostly sees.
//!
//! The reviews did not publish every constant; ssdlab's reading: bursts of 32 MiB (random) or
//! 128 MiB (sequential) at 20% busy, up to 1 GiB in all; the idle after each depth as long
//! as the depth's own run.

use engine::pattern::DataKind;
use engine::shape::{DutyCycle, Shape};
use engine::size::Span;
use engine::units::format_size;
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use super::{Defaults, Kind, Test, TestId, Verifies};
use crate::context::Context;
use crate::drive_state::EMPTY_SPAN_BYTES;
use crate::params::{ns, Overrides, DEFAULT_SEED};
use crate::result::{Report, TestResult};
use crate::steps::{Axis, Stepped};
use crate::Result;

/// The sustained phase's queue depths.
pub const DEPTHS: [u32; 6] = [1, 2, 4, 8, 16, 32];
/// Each depth's bound besides its minute.
pub const STEP_BYTES: u64 = 32 << 30;
/// The bursts' share of busy time, and their total.
pub const BURST_BUSY_PCT: f64 = 20.0;
pub const BURST_TOTAL_BYTES: u64 = 1 << 30;

const fn defaults(block_bytes: u32) -> Defaults {
    Defaults {
        qd: 0,
        block_bytes,
        span: Span::Bytes(EMPTY_SPAN_BYTES),
        duration_s: 60.0,
    }
}

const fn test(id: TestId, about: &'static str, run: super::Run) -> Test {
    Test {
        id,
        kind: Kind::Steps,
        about,
        defaults: Some(defaults(match id {
            TestId::SweepSeqRead | TestId::SweepSeqWrite => 128 << 10,
            _ => 4096,
        })),
        writes: super::always,
        takes_offset: false,
        takes_threads: false,
        takes_precondition: false,
        takes_pts: false,
        takes_state: true,
        verifies: Verifies::Never,
        run,
    }
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
    crate::steps::refuse_fixed(id, o)?;
    let d = super::get(id)?.defaults.expect("a sweep has defaults");
    let block = o.block_bytes.unwrap_or(d.block_bytes);
    let data = o.data.unwrap_or(DataKind::Incompressible);
    let seed = o.seed.unwrap_or(DEFAULT_SEED);
    let step_s = o.duration_s.unwrap_or(d.duration_s);
    let state = o.state.unwrap_or_default();
    let prepared = state.prepare(ctx, dev, block, data, seed)?;
    let workload = |qd: u32, limit: Limit, shape: Shape| Workload {
        access,
        block_bytes: block,
        offset_bytes: 0,
        span_bytes: prepared.span_bytes,
        read_pct,
        op: None,
        data,
        qd,
        threads: 1,
        limit,
        seed,
        shape,
    };
    let duty = DutyCycle {
        burst_bytes: if access == Access::Random { 32 << 20 } else { 128 << 20 },
        busy_pct: BURST_BUSY_PCT,
    };
    // Bounded by its bytes, or by the time a step takes for each busy second.
    let burst = workload(
        1,
        Limit {
            bytes: Some(BURST_TOTAL_BYTES.min(prepared.span_bytes)),
            duration_ns: Some(ns(step_s * 100.0 / BURST_BUSY_PCT)),
            ios: None,
        },
        Shape {
            duty_cycle: Some(duty),
            ..Shape::default()
        },
    );
    let step_limit = Limit {
        bytes: Some(o.bytes.unwrap_or(STEP_BYTES)),
        duration_ns: Some(ns(step_s)),
        ios: o.ios,
    };
    let steps = DEPTHS
        .iter()
        .map(|&qd| (qd as f64, workload(qd, step_limit, Shape::default())))
        .collect();
    let direction = if read_pct == 100 { "read" } else { "write" };
    let mut report = Report::new(
        id,
        format!(
            "{} {} {direction}, {} drive, {}",
            format_size(block.into()),
            if access == Access::Random { "random" } else { "sequential" },
            state,
            data.label()
        ),
    );
    report.variant = Some(state.name().into());
    d.note_overrides(&mut report.deviations, o);
    let stepped = Stepped {
        axis: Axis::QueueDepth,
        state,
        prepared,
        burst: Some(burst),
        steps,
        idle_ns: ns(step_s),
    };
    Ok(vec![stepped.run(ctx, dev, report)?])
}
