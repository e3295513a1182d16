//! The four corners (docs/methodology.md section 2): random and sequential, read and write, at the
//! articles' block sizes, spans, queue depths and lengths.

use engine::pattern::DataKind;
use engine::shape::Shape;
use engine::size::Span;
use engine::units::format_size;
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use super::{Defaults, Fixes, Kind, Options, ReviewSection, Test, TestId, Verifies};
use crate::context::Context;
use crate::params::{ns, region, Overrides, DEFAULT_SEED};
use crate::precondition;
use crate::result::{Report, TestResult};
use crate::Result;

/// One row of the table: its test, and the methodology's workload for it.
#[derive(Clone, Copy, Debug)]
pub struct Corner {
    pub id: TestId,
    pub access: Access,
    pub defaults: Defaults,
    pub read: bool,
}

const GIB: u64 = 1 << 30;

pub const CORNERS: [Corner; 5] = [
    Corner {
        id: TestId::RandomRead,
        access: Access::Random,
        defaults: RANDOM,
        read: true,
    },
    Corner {
        id: TestId::RandomWrite,
        access: Access::Random,
        defaults: RANDOM,
        read: false,
    },
    Corner {
        id: TestId::RandomWriteQd32,
        access: Access::Random,
        defaults: Defaults { qd: 32, ..RANDOM },
        read: false,
    },
    Corner {
        id: TestId::SeqRead,
        access: Access::Sequential,
        defaults: SEQUENTIAL,
        read: true,
    },
    Corner {
        id: TestId::SeqWrite,
        access: Access::Sequential,
        defaults: SEQUENTIAL,
        read: false,
    },
];

/// The random corners' parameters (the twin's scorecard measures them at their length).
pub const RANDOM: Defaults = Defaults {
    qd: 3,
    block_bytes: 4096,
    span: Span::Bytes(8 * GIB),
    duration_s: 180.0,
};

const SEQUENTIAL: Defaults = Defaults {
    qd: 1,
    block_bytes: 128 << 10,
    span: Span::Percent(100.0),
    duration_s: 60.0,
};

pub const TEST: Test = Test {
    id: TestId::Corners,
    kind: Kind::Summary,
    section: Some(ReviewSection::Corners),
    about: "the four corners: every row below, random and sequential writes with both data kinds",
    defaults: None,
    writes: super::always,
    takes: Options::WORKLOAD.with(Options::OFFSET),
    fixes: Fixes::Nothing,
    verifies: Verifies::OnRequest,
    run: run_all,
};

/// Row `I` as a test of its own.
const fn row<const I: usize>(about: &'static str) -> Test {
    Test {
        id: CORNERS[I].id,
        kind: Kind::Summary,
        section: Some(ReviewSection::Corners),
        about,
        defaults: Some(CORNERS[I].defaults),
        writes: super::always,
        takes: Options::WORKLOAD.with(Options::OFFSET),
        fixes: Fixes::Nothing,
        verifies: Verifies::OnRequest,
        run: |dev, ctx, o| Ok(vec![run_one(&CORNERS[I], dev, ctx, o)?]),
    }
}

pub const RANDOM_READ: Test =
    row::<0>("4 KiB random reads, QD3, 8 GiB span, 3 minutes (span filled first)");
pub const RANDOM_WRITE: Test = row::<1>("4 KiB random writes, QD3, 8 GiB span, 3 minutes");
pub const RANDOM_WRITE_QD32: Test =
    row::<2>("4 KiB random writes, QD32, 8 GiB span, 3 minutes, incompressible");
pub const SEQ_READ: Test =
    row::<3>("128 KiB sequential reads, QD1, whole span, 1 minute (span filled first)");
pub const SEQ_WRITE: Test = row::<4>("128 KiB sequential writes, QD1, whole span, 1 minute");

/// All rows on a purged drive; random and sequential writes with both data kinds, as the
/// articles printed.
pub fn run_all(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<Vec<TestResult>> {
    // The reviews ran these on a secure-erased drive.
    let capacity = dev.geometry().capacity_bytes;
    let mut purge = Some(precondition::purge(ctx, dev, 0, capacity));
    let mut results: Vec<TestResult> = Vec::new();
    for corner in &CORNERS {
        let kinds: Vec<Option<DataKind>> = match (corner.read, o.data) {
            (false, None) if corner.id != TestId::RandomWriteQd32 => vec![
                Some(DataKind::Incompressible),
                Some(DataKind::Compressible { compress_pct: 50 }),
            ],
            _ => vec![o.data],
        };
        for data in kinds {
            let o = Overrides { data, ..o.clone() };
            let mut r = run_one(corner, dev, ctx, &o)?;
            if let Some(p) = purge.take() {
                r.preconditioning.insert(0, p);
            }
            let stop = !r.complete;
            results.push(r);
            if stop {
                return Ok(results);
            }
        }
    }
    Ok(results)
}

pub fn run_one(
    c: &Corner,
    dev: &mut dyn Device,
    ctx: &mut Context,
    o: &Overrides,
) -> Result<TestResult> {
    let geo = dev.geometry();
    let d = c.defaults;
    let mut report = Report::new(c.id, "");
    let deviations = &mut report.deviations;
    let block = o.block_bytes.unwrap_or(d.block_bytes);
    let (offset, span) = region(o, d.span, geo.capacity_bytes, block)?;
    if let (Span::Bytes(want), None) = (d.span, o.span) {
        if want > geo.capacity_bytes - offset {
            deviations.push(format!(
                "span {} is larger than the target{}; used what fits ({})",
                format_size(want),
                if offset > 0 { " after the offset" } else { "" },
                format_size(span)
            ));
        }
    }
    let data = o.data.unwrap_or(DataKind::Incompressible);
    let w = Workload {
        access: o.access.unwrap_or(c.access),
        block_bytes: block,
        offset_bytes: offset,
        span_bytes: span,
        read_pct: o.read_pct.unwrap_or(if c.read { 100 } else { 0 }),
        op: None,
        data,
        qd: o.qd.unwrap_or(d.qd),
        limit: Limit {
            duration_ns: Some(ns(o.duration_s.unwrap_or(d.duration_s))),
            ios: o.ios,
            bytes: o.bytes,
        },
        seed: o.seed.unwrap_or(DEFAULT_SEED),
        shape: Shape::default(),
        threads: 1,
    };
    d.note_overrides(deviations, o);
    report.label = label(&w);
    if !c.read {
        report.variant = o.data.map(|d| d.name().to_string());
    }
    super::run_workload(ctx, dev, &w, o.prefill, report)
}

fn label(w: &Workload) -> String {
    let access = match w.access {
        Access::Random => "random",
        Access::Sequential => "sequential",
        Access::SpRandom(_) => "sprandom",
    };
    let dir = match w.read_pct {
        100 => "read".to_string(),
        0 => format!("write, {}", w.data.label()),
        r => format!("{r}% read"),
    };
    format!(
        "{} {access} {dir}, QD{}",
        format_size(w.block_bytes as u64),
        w.qd
    )
}
