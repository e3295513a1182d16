//! Preconditioning states of the methodology (section 0): clean (purged), full (one
//! sequential pass), and the purge method actually used, recorded honestly.

use engine::driver::{self, Outcome};
use engine::pattern::DataKind;
use engine::workload::{Access, Limit, Workload};
use engine::Device;

use crate::context::Context;
use crate::result::Phase;
use crate::SuiteError;

/// Discard chunk: large enough to be quick, small enough for every device's limit.
const DISCARD_CHUNK: u64 = 1 << 30;

/// Make `offset..offset+len` clean. The whole device is secure-erased where the device can
/// (the simulator: every block erased, whatever its TRIM does); otherwise, and for part of
/// a device, it is unmapped with discards. A device that can do neither is reported as not
/// clean rather than pretending.
pub fn purge(ctx: &mut Context, dev: &mut dyn Device, offset: u64, len: u64) -> Phase {
    if offset == 0 && len >= dev.geometry().capacity_bytes {
        match dev.secure_erase() {
            Ok(Some(method)) => {
                ctx.observer.note(&format!("purging with {method}"));
                return Phase {
                    name: "purge".into(),
                    description: format!("erased the whole device ({len} bytes)"),
                    method: Some(method),
                    summary: None,
                    complete: true,
                };
            }
            Ok(None) => {}
            Err(e) => ctx
                .observer
                .note(&format!("secure erase failed ({e}); discarding instead")),
        }
    }
    trim(ctx, dev, offset, len)
}

/// TRIM `offset..offset+len` with discards (what the TRIM test measures).
pub fn trim(ctx: &mut Context, dev: &mut dyn Device, offset: u64, len: u64) -> Phase {
    let kind = dev.identity().kind;
    let method = match kind.as_str() {
        "block" => "BLKDISCARD",
        "file" => "hole punch (fallocate)",
        _ => "TRIM (simulated)",
    };
    ctx.observer.note(&format!("purging with {method}"));
    match driver::discard_range(dev, offset, len, DISCARD_CHUNK) {
        Ok(_) => Phase {
            name: "purge".into(),
            description: format!("unmapped {len} bytes at offset {offset}"),
            method: Some(method.into()),
            summary: None,
            complete: true,
        },
        Err(e) => {
            ctx.observer
                .note(&format!("purge failed ({e}); the device is NOT clean"));
            Phase {
                name: "purge".into(),
                description: "no purge was possible: results are not from a clean drive".into(),
                method: Some(format!("none ({e})")),
                summary: None,
                complete: false,
            }
        }
    }
}

/// The sequential fill that makes a span "full": 128 KiB writes over every LBA once.
pub fn fill_workload(offset: u64, span: u64, data: DataKind, seed: u64) -> Workload {
    let block = 128 << 10;
    Workload {
        access: Access::Sequential,
        block_bytes: block,
        offset_bytes: offset,
        span_bytes: span / block as u64 * block as u64,
        read_pct: 0,
        op: None,
        data,
        qd: 32,
        limit: Limit {
            bytes: Some(span / block as u64 * block as u64),
            ..Limit::default()
        },
        seed,
    }
}

pub fn fill(
    ctx: &mut Context,
    dev: &mut dyn Device,
    offset: u64,
    span: u64,
    data: DataKind,
    seed: u64,
) -> Result<(Phase, Outcome), SuiteError> {
    let w = fill_workload(offset, span, data, seed);
    let outcome = ctx.drive(dev, &w, "sequential fill (128 KiB, QD32)", false)?;
    let phase = Phase {
        name: "fill".into(),
        description: format!(
            "one sequential pass of 128 KiB writes over {} bytes at offset {offset}",
            w.span_bytes
        ),
        method: None,
        summary: Some(outcome.measurements.summary.clone()),
        complete: outcome.stopped.is_none(),
    };
    Ok((phase, outcome))
}
