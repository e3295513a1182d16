//! The four corners (METHODOLOGY section 2): random and sequential, read and write, at the
//! articles' block sizes, spans, queue depths and lengths.

use engine::pattern::DataKind;
use engine::size::{format_size, Span};
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use crate::context::Context;
use crate::params::{ns, region, Overrides, DEFAULT_SEED};
use crate::precondition;
use crate::result::{Report, TestResult};
use crate::SuiteError;

#[derive(Clone, Copy, Debug)]
pub struct Corner {
    pub name: &'static str,
    pub access: Access,
    pub block_bytes: u32,
    pub span: Span,
    pub qd: u32,
    pub duration_s: f64,
    pub read: bool,
}

const GIB: u64 = 1 << 30;

pub const CORNERS: [Corner; 5] = [
    Corner {
        name: "random-read",
        access: Access::Random,
        block_bytes: 4096,
        span: Span::Bytes(8 * GIB),
        qd: 3,
        duration_s: 180.0,
        read: true,
    },
    Corner {
        name: "random-write",
        access: Access::Random,
        block_bytes: 4096,
        span: Span::Bytes(8 * GIB),
        qd: 3,
        duration_s: 180.0,
        read: false,
    },
    Corner {
        name: "random-write-qd32",
        access: Access::Random,
        block_bytes: 4096,
        span: Span::Bytes(8 * GIB),
        qd: 32,
        duration_s: 180.0,
        read: false,
    },
    Corner {
        name: "seq-read",
        access: Access::Sequential,
        block_bytes: 128 << 10,
        span: Span::Percent(100.0),
        qd: 1,
        duration_s: 60.0,
        read: true,
    },
    Corner {
        name: "seq-write",
        access: Access::Sequential,
        block_bytes: 128 << 10,
        span: Span::Percent(100.0),
        qd: 1,
        duration_s: 60.0,
        read: false,
    },
];

pub fn find(name: &str) -> Result<&'static Corner, SuiteError> {
    CORNERS
        .iter()
        .find(|c| c.name == name)
        .ok_or_else(|| SuiteError::UnknownTest(name.into(), "a corner".into()))
}

/// All rows on a purged drive; random and sequential writes with both data kinds, as the
/// articles printed.
pub fn run_all(
    dev: &mut dyn Device,
    ctx: &mut Context,
    o: &Overrides,
) -> Result<Vec<TestResult>, SuiteError> {
    // The reviews ran these on a secure-erased drive.
    let capacity = dev.geometry().capacity_bytes;
    let mut purge = Some(precondition::purge(ctx, dev, 0, capacity));
    let mut results: Vec<TestResult> = Vec::new();
    for corner in &CORNERS {
        let kinds: Vec<Option<DataKind>> = match (corner.read, o.data) {
            (false, None) if corner.name != "random-write-qd32" => vec![
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
) -> Result<TestResult, SuiteError> {
    let geo = dev.geometry();
    let mut report = Report::new(c.name, "");
    let deviations = &mut report.deviations;
    let block = o.block_bytes.unwrap_or(c.block_bytes);
    let (offset, span) = region(o, c.span, geo.capacity_bytes, block)?;
    if let (Span::Bytes(want), None) = (c.span, o.span) {
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
        qd: o.qd.unwrap_or(c.qd),
        limit: Limit {
            duration_ns: Some(ns(o.duration_s.unwrap_or(c.duration_s))),
            ios: o.ios,
            bytes: o.bytes,
        },
        seed: o.seed.unwrap_or(DEFAULT_SEED),
    };
    crate::note_overrides(deviations, o, c.qd, c.block_bytes, c.duration_s);
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
