//! The 2018-2021 reviews' mixed tests: 4 KiB random at QD4, and 128 KiB sequential at QD1,
//! from all reads to all writes in steps of 10%, each for up to a minute or 32 GiB with no
//! idle between, over the drive state's region (`--state`). Their summary is the mean over
//! every share; the curve shows where a drive's mix falls below both its pure speeds.

use engine::pattern::DataKind;
use engine::shape::Shape;
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

/// Read shares, in the order run: reads first, as the reviews ran them.
pub const READ_SHARES: [u8; 11] = [100, 90, 80, 70, 60, 50, 40, 30, 20, 10, 0];

const fn test(
    id: TestId,
    qd: u32,
    block_bytes: u32,
    about: &'static str,
    run: super::Run,
) -> Test {
    Test {
        id,
        kind: Kind::Steps,
        about,
        defaults: Some(Defaults {
            qd,
            block_bytes,
            span: Span::Bytes(EMPTY_SPAN_BYTES),
            duration_s: 60.0,
        }),
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

pub const RANDOM: Test = test(
    TestId::MixedRandom,
    4,
    4096,
    "4 KiB random at QD4, 100% to 0% reads in 10% steps, each up to 1 minute or 32 GiB (2018-2021 reviews; --state empty|full)",
    |dev, ctx, o| run(TestId::MixedRandom, Access::Random, dev, ctx, o),
);
pub const SEQUENTIAL: Test = test(
    TestId::MixedSeq,
    1,
    128 << 10,
    "128 KiB sequential at QD1, 100% to 0% reads in 10% steps, each up to 1 minute or 32 GiB (2018-2021 reviews; --state empty|full)",    |dev, ctx, o| run(TestId::MixedSeq, Access::Sequential, dev, ctx, o),
);

fn run(
    id: TestId,
    access: Access,
    dev: &mut dyn Device,
    ctx: &mut Context,
    o: &Overrides,
) -> Result<Vec<TestResult>> {
    crate::steps::refuse_fixed(id, o)?;
    let d = super::get(id)?.defaults.expect("a mixed test has defaults");
    let block = o.block_bytes.unwrap_or(d.block_bytes);
    let data = o.data.unwrap_or(DataKind::Incompressible);
    let seed = o.seed.unwrap_or(DEFAULT_SEED);
    let state = o.state.unwrap_or_default();
    let prepared = state.prepare(ctx, dev, block, data, seed)?;
    let limit = Limit {
        bytes: Some(o.bytes.unwrap_or(super::queue_sweep::STEP_BYTES)),
        duration_ns: Some(ns(o.duration_s.unwrap_or(d.duration_s))),
        ios: o.ios,
    };
    let steps = READ_SHARES
        .iter()
        .map(|&read_pct| {
            let w = Workload {
                access,
                block_bytes: block,
                offset_bytes: 0,
                span_bytes: prepared.span_bytes,
                read_pct,
                op: None,
                data,
                qd: d.qd,
                threads: 1,
                limit,
                seed,
                shape: Shape::default(),
            };
            (f64::from(read_pct), w)
        })
        .collect();
    let mut report = Report::new(
        id,
        format!(
            "{} {} mixed, QD{}, {} drive, {}",
            format_size(block.into()),
            if access == Access::Random { "random" } else { "sequential" },
            d.qd,
            state,
            data.label()
        ),
    );
    report.variant = Some(state.name().into());
    d.note_overrides(&mut report.deviations, o);
    let stepped = Stepped {
        axis: Axis::ReadShare,
        state,
        prepared,
        burst: None,
        steps,
        idle_ns: 0,
    };
    Ok(vec![stepped.run(ctx, dev, report)?])
}
