//! SNIA PTS 2.0.2 throughput: for each of its block sizes (128 and 1024 KiB for PTS-E, 1024
//! KiB for PTS-C) from a purged and preconditioned drive, rounds of a minute of sequential
//! writes and a minute of sequential reads until the writes' MB/s is steady; MB/s of each
//! over the measurement window.

use engine::shape::Shape;
use engine::workload::Access;
use engine::Device;

use super::{Kind, Options, Test, TestId};
use crate::context::Context;
use crate::params::Overrides;
use crate::pts::{size_label, Figure, Frame, PtsVariant, Schedule, Stimulus};
use crate::result::TestResult;
use crate::Result;

/// One sequential stream, deep enough for the drive's full speed.
pub const QD: u32 = 32;

pub const TEST: Test = Test::pts(
    TestId::PtsThroughput,
    Kind::Pts,
    "SNIA PTS 2.0.2 throughput: per block size (PTS-E 128 and 1024 KiB, PTS-C 1024 KiB) \
        purge, 2x capacity of 128 KiB sequential writes, then rounds of a minute of \
        sequential writes and one of reads at T1Q32 until the writes are steady; MB/s over \
        the 5-round window",
    Options::PTS.with(Options::QD).with(Options::SPAN),
    |dev, ctx, o| Ok(vec![run(dev, ctx, o)?]),
);

/// The spec's block sizes for a variant.
pub fn block_sizes(variant: PtsVariant) -> &'static [u32] {
    match variant {
        PtsVariant::Client => &[1 << 20],
        PtsVariant::Enterprise => &[128 << 10, 1 << 20],
    }
}

/// A block size's round: writes (the tracking variable), then reads.
pub fn stimuli(block_bytes: u32, qd: u32) -> [Stimulus; 2] {
    [0, 100].map(|read_pct| Stimulus {
        access: Access::Sequential,
        block_bytes,
        read_pct,
        threads: 1,
        qd,
        shape: Shape::default(),
    })
}

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<TestResult> {
    let frame = Frame::of(dev, o);
    let qd = o.qd.unwrap_or(QD);
    let sizes = block_sizes(frame.variant);
    let names: Vec<String> = sizes.iter().map(|&b| size_label(b)).collect();
    let what = format!("throughput: SEQ {}, T1Q{qd}", names.join(" and "));
    let mut report = frame.report(TestId::PtsThroughput, &what, o);
    for &block in sizes {
        frame.check(dev, &stimuli(block, qd), TestId::PtsThroughput.name())?;
    }
    let mut runs = Vec::new();
    for (&block, name) in sizes.iter().zip(&names) {
        let label = format!("PTS throughput {name}");
        let stimuli = stimuli(block, qd);
        let schedule = Schedule {
            name: &label,
            stimuli: &stimuli,
            tracking: 0,
            figure: Figure::Mbps,
            histograms: false,
        };
        match frame.sequence(ctx, dev, &mut report, &schedule)? {
            Ok(ran) => {
                let stopped = ran.stopped();
                runs.push(ran);
                if stopped {
                    break;
                }
            }
            // Interrupted preconditioning: the figures so far, or the phase's.
            Err((w, outcome)) if runs.is_empty() => return Ok(report.finish(dev, &w, outcome)),
            Err(_) => break,
        }
    }
    Ok(frame.finish(report, dev, runs))
}
