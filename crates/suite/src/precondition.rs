//! Preconditioning states of the methodology (section 0): clean (purged), full (one
//! sequential pass), and the purge method actually used, recorded honestly.

use engine::drive::PurgeMethod;
use engine::driver::{self, Outcome, Progress};
use engine::pattern::DataKind;
use engine::shape::Shape;
use engine::verify::Verification;
use engine::workload::{Access, Limit, Workload};
use engine::{Clock, Device};

use crate::context::Context;
use crate::result::{Phase, Report};
use crate::SuiteError;

/// Discard chunk: large enough to be quick, small enough for every device's limit.
const DISCARD_CHUNK: u64 = 1 << 30;

/// Make `offset..offset+len` clean, as `--purge` says. The whole device is erased through
/// its own commands where it has them (NVMe Sanitize or Format, ATA SANITIZE or SECURITY
/// ERASE; the simulator: every block erased, whatever its TRIM does); otherwise, and for part
/// of a device, it is unmapped with discards. A purge that cannot be done is reported as
/// "not clean" rather than pretended.
pub fn purge(ctx: &mut Context, dev: &mut dyn Device, offset: u64, len: u64) -> Phase {
    let method = ctx.purge;
    let not_clean = |ctx: &mut Context, why: String| {
        ctx.observer
            .note(&format!("{why}: the device is NOT clean"));
        Phase {
            name: "purge".into(),
            description: format!("{why}: results are not from a clean drive"),
            method: Some("none".into()),
            summary: None,
            complete: false,
        }
    };
    match method {
        PurgeMethod::None => return not_clean(ctx, "not purged (--purge none)".into()),
        PurgeMethod::Discard => return trim(ctx, dev, offset, len),
        _ => {}
    }
    let device_level = !matches!(method, PurgeMethod::Auto);
    if offset != 0 || len < dev.geometry().capacity_bytes {
        if device_level {
            return not_clean(
                ctx,
                format!("--purge {method} erases a whole device, but this test purges part of it"),
            );
        }
        return trim(ctx, dev, offset, len);
    }
    let label = format!("purge ({method})");
    ctx.observer.phase(&label, Clock::Wall);
    let started = std::time::Instant::now();
    let observer = &mut *ctx.observer;
    let mut progress = |fraction: f64| {
        observer.progress(&Progress {
            fraction,
            elapsed_ns: started.elapsed().as_nanos() as u64,
            ios: 0,
            bytes: 0,
            recent_iops: 0.0,
            recent_mbps: 0.0,
        })
    };
    let erased = dev.erase(method, &mut progress);
    ctx.observer.phase_done();
    match erased {
        Ok(Some(done)) => {
            ctx.observer.note(&format!("purged with {done}"));
            Phase {
                name: "purge".into(),
                description: format!("erased the whole device ({len} bytes)"),
                method: Some(done),
                summary: None,
                complete: true,
            }
        }
        Ok(None) if device_level => not_clean(
            ctx,
            format!(
                "--purge {method} needs a drive that speaks NVMe or ATA; {} has no such command",
                dev.identity().path
            ),
        ),
        Ok(None) => trim(ctx, dev, offset, len),
        Err(e) if device_level => not_clean(ctx, format!("--purge {method} failed ({e})")),
        Err(e) => {
            ctx.observer
                .note(&format!("device erase failed ({e}); discarding instead"));
            trim(ctx, dev, offset, len)
        }
    }
}

/// TRIM `offset..offset+len` with discards (what the TRIM test measures).
pub fn trim(ctx: &mut Context, dev: &mut dyn Device, offset: u64, len: u64) -> Phase {
    let method = dev.identity().kind.discard_method();
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
        shape: Shape::default(),
        threads: 1,
    }
}

/// One sequential pass of 128 KiB writes over the region, its writes verified by `verify`
/// when given (a read test's `--verify`).
pub fn fill(
    ctx: &mut Context,
    dev: &mut dyn Device,
    offset: u64,
    span: u64,
    data: DataKind,
    seed: u64,
    verify: Option<&mut Verification>,
) -> Result<(Phase, Outcome), SuiteError> {
    let w = fill_workload(offset, span, data, seed);
    let label = "sequential fill (128 KiB, QD32)";
    let outcome = match verify {
        Some(v) => ctx.drive_verified(dev, &w, label, false, v)?,
        None => ctx.drive(dev, &w, label, false)?,
    };
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

/// What a test that reads does before its measured phase ([`before_reads`]).
// Made once per test and consumed at once: its size does not matter.
#[allow(clippy::large_enum_variant)]
pub enum BeforeReads {
    /// Ready to measure; with `--verify` on a test of reads only, the fill's data is verified
    /// after the measured reads.
    Ready(Option<Verification>),
    /// The fill was stopped (interrupted): its outcome ends the test.
    Stopped(Outcome),
}

/// A test whose workload reads measures what its span holds, so the span is filled first
/// (one sequential pass, the methodology's read corners) unless `prefill` is `Some(false)`
/// (`--no-prefill`), which the result then states: reads of LBAs never written or trimmed are
/// answered without reading NAND, faster than reads of data. With `--verify` on a workload of
/// reads only, what the fill wrote is what gets verified.
pub fn before_reads(
    ctx: &mut Context,
    dev: &mut dyn Device,
    w: &Workload,
    prefill: Option<bool>,
    report: &mut Report,
) -> Result<BeforeReads, SuiteError> {
    let prefill = w.read_pct > 0 && prefill.unwrap_or(true);
    let verify_fill = w.read_pct == 100 && ctx.verify.is_some();
    if verify_fill && !prefill {
        return Err(SuiteError::Parameter(format!(
            "--verify: {} only reads, and with --no-prefill nothing it reads was written by \
             this run, so there is nothing to verify; drop --no-prefill (the prefill's data \
             is then verified) or --verify",
            report.test
        )));
    }
    if !prefill {
        if w.read_pct > 0 {
            report.deviations.push(
                "not filled first (--no-prefill): reads of LBAs never written or trimmed are \
                 answered without reading NAND, faster than reads of data"
                    .into(),
            );
        }
        return Ok(BeforeReads::Ready(None));
    }
    let mut verification = match verify_fill {
        true => ctx.verification(
            dev,
            &fill_workload(w.offset_bytes, w.span_bytes, w.data, w.seed),
        )?,
        false => None,
    };
    let (phase, outcome) = fill(
        ctx,
        dev,
        w.offset_bytes,
        w.span_bytes,
        w.data,
        w.seed,
        verification.as_mut(),
    )?;
    report.preconditioning.push(phase);
    Ok(match outcome.stopped {
        Some(_) => BeforeReads::Stopped(outcome),
        None => BeforeReads::Ready(verification),
    })
}
