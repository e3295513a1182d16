//! The quick profiles of CrystalDiskMark 8 (and KDiskMark, fio underneath): a few workloads
//! of a few seconds each on a 1 GiB region at the start of the target, every read first (the
//! region is filled once before them), then every write, then, with `--read-pct`, every mix.
//! What most people run first, with the drive's identity and a result file per cell.
//!
//! Each cell runs 5 s once: CrystalDiskMark's measure time, without its five repeats and the
//! 5 s intervals between tests, so a profile takes under a minute on a real drive.

use engine::pattern::DataKind;
use engine::shape::Shape;
use engine::size::Span;
use engine::units::format_size;
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use super::{Defaults, Fixes, Kind, Options, Test, TestId, Verifies};
use crate::context::Context;
use crate::params::{ns, region, Overrides, DEFAULT_SEED};
use crate::result::{Phase, Report, TestResult};
use crate::Result;

/// One workload of a profile, named as CrystalDiskMark names it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    pub name: &'static str,
    pub access: Access,
    pub block_bytes: u32,
    pub qd: u32,
    pub threads: u32,
}

const fn cell(name: &'static str, access: Access, kib: u32, qd: u32, threads: u32) -> Cell {
    Cell {
        name,
        access,
        block_bytes: kib << 10,
        qd,
        threads,
    }
}

const SEQ1M_Q8T1: Cell = cell("SEQ1M Q8T1", Access::Sequential, 1024, 8, 1);
const SEQ1M_Q1T1: Cell = cell("SEQ1M Q1T1", Access::Sequential, 1024, 1, 1);
const SEQ128K_Q32T1: Cell = cell("SEQ128K Q32T1", Access::Sequential, 128, 32, 1);
const RND4K_Q32T1: Cell = cell("RND4K Q32T1", Access::Random, 4, 32, 1);
const RND4K_Q32T16: Cell = cell("RND4K Q32T16", Access::Random, 4, 32, 16);
const RND4K_Q1T1: Cell = cell("RND4K Q1T1", Access::Random, 4, 1, 1);

/// CrystalDiskMark 8's profiles.
pub const DEFAULT: [Cell; 4] = [SEQ1M_Q8T1, SEQ1M_Q1T1, RND4K_Q32T1, RND4K_Q1T1];
pub const NVME: [Cell; 4] = [SEQ1M_Q8T1, SEQ128K_Q32T1, RND4K_Q32T16, RND4K_Q1T1];
pub const PEAK: [Cell; 2] = [SEQ1M_Q8T1, RND4K_Q32T16];
pub const REAL_WORLD: [Cell; 2] = [SEQ1M_Q1T1, RND4K_Q1T1];

/// CrystalDiskMark's default test size.
const TEST_SIZE: u64 = 1 << 30;

/// CrystalDiskMark's default test size and measure time; the cells set the rest.
pub const DEFAULTS: Defaults = Defaults {
    qd: 0,
    block_bytes: 0,
    span: Span::Bytes(TEST_SIZE),
    duration_s: 5.0,
};

const fn profile(id: TestId, about: &'static str, run: super::Run) -> Test {
    Test {
        id,
        kind: Kind::Summary,
        section: None,
        about,
        defaults: Some(DEFAULTS),
        writes: super::always,
        takes: Options::WORKLOAD.without(Options::QD.with(Options::BS).with(Options::ACCESS)).with(Options::OFFSET),
        fixes: Fixes::Own {
            why: "a quick profile runs its own cells (their block sizes, depths and threads)",
            then: ", or use `ssdlab run custom`",
        },
        verifies: Verifies::OnRequest,
        run,
    }
}

pub const TEST: Test = profile(
    TestId::Quick,
    "CrystalDiskMark's default profile: SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1, read then write, 5 s each on the first 1 GiB (--read-pct P adds a mix at P% reads)",
    |dev, ctx, o| run(TestId::Quick, &DEFAULT, dev, ctx, o),
);
pub const NVME_TEST: Test = profile(
    TestId::QuickNvme,
    "CrystalDiskMark's NVMe profile: SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1, read then write, 5 s each on the first 1 GiB",
    |dev, ctx, o| run(TestId::QuickNvme, &NVME, dev, ctx, o),
);
pub const PEAK_TEST: Test = profile(
    TestId::QuickPeak,
    "CrystalDiskMark's peak profile: SEQ1M Q8T1 and RND4K Q32T16, read then write, 5 s each on the first 1 GiB",
    |dev, ctx, o| run(TestId::QuickPeak, &PEAK, dev, ctx, o),
);
pub const REAL_WORLD_TEST: Test = profile(
    TestId::QuickRealWorld,
    "CrystalDiskMark's real-world profile: SEQ1M Q1T1 and RND4K Q1T1, read then write, 5 s each on the first 1 GiB",
    |dev, ctx, o| run(TestId::QuickRealWorld, &REAL_WORLD, dev, ctx, o),
);

/// The profile's cells read, then written, then mixed when `--read-pct` asks for it.
fn run(
    id: TestId,
    cells: &[Cell],
    dev: &mut dyn Device,
    ctx: &mut Context,
    o: &Overrides,
) -> Result<Vec<TestResult>> {
    let largest = cells.iter().map(|c| c.block_bytes).max().unwrap_or(4096);
    let (offset, span) = region(o, DEFAULTS.span, dev.geometry().capacity_bytes, largest)?;
    let mut passes = vec![100, 0];
    passes.extend(o.read_pct.filter(|&p| p > 0 && p < 100));
    let mut results = Vec::new();
    // The region is filled before the first read only: later results name that fill.
    let mut filled: Option<Vec<Phase>> = None;
    for read_pct in passes {
        for c in cells {
            let w = Workload {
                access: c.access,
                block_bytes: c.block_bytes,
                offset_bytes: offset,
                span_bytes: span,
                read_pct,
                op: None,
                data: o.data.unwrap_or(DataKind::Incompressible),
                qd: c.qd,
                threads: c.threads,
                limit: Limit {
                    duration_ns: Some(ns(o.duration_s.unwrap_or(DEFAULTS.duration_s))),
                    ios: o.ios,
                    bytes: o.bytes,
                },
                seed: o.seed.unwrap_or(DEFAULT_SEED),
                shape: Shape::default(),
            };
            let direction = match read_pct {
                100 => "read".to_string(),
                0 => "write".to_string(),
                p => format!("mix {p}% read"),
            };
            let mut report = Report::new(id, format!("{} {direction}", c.name));
            report.variant = Some(
                format!("{}-{direction}", c.name)
                    .to_lowercase()
                    .replace('%', "")
                    .replace(' ', "-"),
            );
            DEFAULTS.note_overrides(&mut report.deviations, o);
            if o.span.is_none() && span < TEST_SIZE {
                report.deviations.push(format!(
                    "test size {} instead of {}: the target is smaller",
                    format_size(span),
                    format_size(TEST_SIZE)
                ));
            }
            let result = match &filled {
                None => {
                    let r = super::run_workload(ctx, dev, &w, o.prefill, report)?;
                    filled = Some(r.preconditioning.clone());
                    r
                }
                Some(fill) => {
                    let outcome = ctx.drive(dev, &w, &report.label, true)?;
                    report.preconditioning = fill.clone();
                    report.finish(dev, &w, outcome)
                }
            };
            let stop = !result.complete;
            results.push(result);
            if stop {
                return Ok(results);
            }
        }
    }
    Ok(results)
}

/// The cell of a quick profile that ran `w`, by its workload.
pub fn cell_of(w: &Workload) -> Option<&'static Cell> {
    [&DEFAULT[..], &NVME, &PEAK, &REAL_WORLD]
        .into_iter()
        .flatten()
        .find(|c| {
            (c.access, c.block_bytes, c.qd, c.threads) == (w.access, w.block_bytes, w.qd, w.threads)
        })
}

/// Whether `id` is one of the quick profiles.
pub fn is_quick(id: TestId) -> bool {
    matches!(
        id,
        TestId::Quick | TestId::QuickNvme | TestId::QuickPeak | TestId::QuickRealWorld
    )
}
