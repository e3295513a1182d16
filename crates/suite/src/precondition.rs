//! Preconditioning states of the methodology (docs/methodology.md section 0): clean (purged), full (one
//! sequential pass) or, asked for, near the random-write steady state (one SPRandom pass),
//! and the purge method actually used, recorded honestly.

use std::fmt;
use std::str::FromStr;

use engine::drive::PurgeMethod;
use engine::driver::{self, Outcome, Progress};
use engine::pattern::DataKind;
use engine::shape::{Shape, SpRandom};
use engine::size::parse_size;
use engine::units::format_size;
use engine::verify::Verification;
use engine::workload::{Access, Limit, Workload};
use engine::{Clock, Device};

use crate::context::Context;
use crate::result::{Phase, Report};
use crate::{ChoiceError, SuiteError};

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

/// How a test that measures random writes in steady state prepares the drive after the
/// purge (`--precondition`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Precondition {
    /// One sequential pass; the measurement itself runs into the steady state.
    #[default]
    Fill,
    /// One pass of fio's SPRandom order, which leaves the drive's blocks as much invalid
    /// data as the steady state does: the measurement starts close to it.
    SpRandom(SpRandom),
}

impl Precondition {
    /// Refuse a choice `by` (a command or test) would ignore.
    pub fn check_used_by(self, by: &str, uses: bool) -> Result<(), PreconditionUnused> {
        if uses || self == Precondition::Fill {
            return Ok(());
        }
        let users: Vec<&str> = crate::methodology::TESTS
            .iter()
            .filter(|t| t.takes(crate::methodology::Options::PRECONDITION))
            .map(|t| t.name())
            .collect();
        Err(PreconditionUnused {
            by: by.into(),
            users: users.join(" and "),
        })
    }
}

/// A preconditioning chosen for a command or test that does not precondition.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--precondition prepares the drive for {users} only; {by} does not use it: drop it")]
pub struct PreconditionUnused {
    by: String,
    users: String,
}

impl FromStr for Precondition {
    type Err = ChoiceError;

    /// `fill`, or `sprandom[:KEY=VALUE,...]` with fio's parameters: `op` the drive's spare
    /// area as physical/logical - 1 (`op=7%` or `op=0.07`; fio's 15% when not given),
    /// `cache` its write cache (`cache=1GiB`; none when not given) and `regions` (100).
    fn from_str(text: &str) -> Result<Precondition, ChoiceError> {
        const USAGE: &str = "use fill (the default) or sprandom[:op=OP,cache=SIZE,regions=N], OP \
                             the drive's spare area as physical/logical - 1 (sprandom:op=7%; \
                             fio's 15% when not given), SIZE its write cache (none when not \
                             given)";
        let (name, keys) = match text.split_once(':') {
            Some((name, keys)) => (name, Some(keys)),
            None => (text, None),
        };
        match (name.trim().to_ascii_lowercase().as_str(), keys) {
            ("fill", None) => Ok(Precondition::Fill),
            ("sprandom", keys) => {
                let fio = SpRandom::default();
                let (mut op, mut regions, mut cache) =
                    (fio.over_provisioning(), fio.regions(), fio.cache_bytes());
                for pair in keys.into_iter().flat_map(|k| k.split(',')) {
                    let bad = |problem: &str| ChoiceError::Malformed {
                        given: pair.into(),
                        problem: format!("is {problem}"),
                        usage: USAGE,
                    };
                    let (key, value) = pair.split_once('=').ok_or_else(|| bad("not KEY=VALUE"))?;
                    let value = value.trim();
                    match key.trim() {
                        "op" => {
                            op = match value.strip_suffix('%') {
                                Some(pct) => pct.trim().parse::<f64>().map(|p| p / 100.0),
                                None => value.parse::<f64>(),
                            }
                            .map_err(|_| bad("not a spare area"))?
                        }
                        "cache" => {
                            cache = parse_size(value)
                                .map_err(|e| bad(&format!("not a cache size ({e})")))?
                        }
                        "regions" => {
                            regions = value.parse().map_err(|_| bad("not a number of regions"))?
                        }
                        _ => return Err(bad("an unknown key")),
                    }
                }
                SpRandom::new(op, regions, cache)
                    .map(Precondition::SpRandom)
                    .map_err(|e| ChoiceError::Malformed {
                        given: text.into(),
                        problem: format!("cannot be laid out ({e})"),
                        usage: USAGE,
                    })
            }
            _ => Err(ChoiceError::Unknown {
                what: "preconditioning",
                given: text.into(),
                choices: USAGE.trim_start_matches("use ").into(),
            }),
        }
    }
}

impl fmt::Display for Precondition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Precondition::Fill => f.write_str("fill"),
            // The spare area as given: a percentage, not its binary fraction's digits.
            Precondition::SpRandom(s) => write!(
                f,
                "sprandom:op={}%,cache={},regions={}",
                (s.over_provisioning() * 1e6).round() / 1e4,
                s.cache_bytes(),
                s.regions()
            ),
        }
    }
}

/// Bring `0..span` (purged) to where random writes of `block` bytes are measured, as
/// `ctx.precondition` says: one sequential pass, or one SPRandom pass of `block` writes.
pub fn before_random_writes(
    ctx: &mut Context,
    dev: &mut dyn Device,
    span: u64,
    block: u32,
    data: DataKind,
    seed: u64,
) -> Result<(Phase, Outcome), SuiteError> {
    let Precondition::SpRandom(s) = ctx.precondition else {
        return fill(ctx, dev, 0, span, data, seed, None);
    };
    let units = span / block as u64;
    let w = Workload {
        access: Access::SpRandom(s),
        block_bytes: block,
        offset_bytes: 0,
        span_bytes: units * block as u64,
        read_pct: 0,
        op: None,
        data,
        qd: 32,
        threads: 1,
        limit: Limit {
            bytes: Some(s.writes(units, block as u64) * block as u64),
            ..Limit::default()
        },
        seed,
        shape: Shape::default(),
    };
    let label = format!("SPRandom pass ({}, QD32)", format_size(block as u64));
    let started = std::time::Instant::now();
    let outcome = ctx.drive(dev, &w, &label, false)?;
    let summary = &outcome.measurements.summary;
    let parked = parked_in_cache(&outcome);
    if let Some(caveat) = &parked {
        ctx.observer.note(caveat);
    }
    let phase = Phase {
        name: "sprandom".into(),
        description: format!(
            "one SPRandom pass (fio's sprandom, spare area {:.1}%, {} regions, {}): {} writes \
             of {} over {} bytes, {:.2} times the span, in {:.1} s on the device's clock \
             ({:.1} s wall){}",
            s.over_provisioning() * 100.0,
            s.regions(),
            match s.cache_bytes() {
                0 => "rewrites at once".to_string(),
                c => format!("rewrites a region later for a {} cache", format_size(c)),
            },
            summary.ios,
            format_size(block as u64),
            w.span_bytes,
            summary.bytes as f64 / w.span_bytes as f64,
            summary.duration_s,
            started.elapsed().as_secs_f64(),
            parked.map(|c| format!(". {c}")).unwrap_or_default(),
        ),
        method: Some(Precondition::SpRandom(s).to_string()),
        summary: Some(summary.clone()),
        complete: outcome.stopped.is_none(),
    };
    Ok((phase, outcome))
}

/// What to say when a pass left data in the device's pseudo-SLC cache (where the device
/// counts it: the simulator). SPRandom shapes the invalid data of the blocks GC cleans; a
/// cache that moves its data out only in idle time keeps it through a run of writes, until
/// the host overwrites it, and meanwhile the main array holds that much less: on the
/// Extreme II model at 16 GiB, 0.7 GiB after the pass, gone only after about five drive
/// fills of random writes, and the measurement 16% faster than the steady state.
fn parked_in_cache(outcome: &Outcome) -> Option<String> {
    let counters = outcome.counters.as_ref()?;
    let (start, end) = (counters.start.sim()?, counters.end.as_ref()?.sim()?);
    let moved_out = end.slc_migrations.saturating_sub(start.slc_migrations);
    let parked =
        (end.slc_cache_hits.saturating_sub(start.slc_cache_hits)).saturating_sub(moved_out);
    (end.slc_cached_blocks > 0 && parked > 0).then(|| {
        format!(
            "{} of the pass's writes went into the drive's pseudo-SLC cache and stayed there: \
             SPRandom shapes the main array's invalid data, not a cache's. Data a cache moves \
             out only in idle time leaves it during random writes only as they overwrite it \
             (about 63% of it per drive fill), and until then the main array has that much \
             more room: a short measurement after the pass can run faster, with less write \
             amplification, than the steady state",
            format_size(parked * 4096)
        )
    })
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
                "the span was not filled first: reads of LBAs never written or trimmed are \
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preconditioning_reads_as_fio_names_its_parameters() {
        assert_eq!("fill".parse(), Ok(Precondition::Fill));
        assert_eq!(
            "sprandom".parse(),
            Ok(Precondition::SpRandom(SpRandom::default()))
        );
        let p: Precondition = "sprandom:op=7%,cache=1GiB,regions=16".parse().unwrap();
        let want = SpRandom::new(0.07, 16, 1 << 30).unwrap();
        assert_eq!(p, Precondition::SpRandom(want));
        assert_eq!(p.to_string(), "sprandom:op=7%,cache=1073741824,regions=16");
        assert_eq!(p.to_string().parse(), Ok(p));
        assert_eq!("sprandom:op=0.07,cache=1G,regions=16".parse(), Ok(p));
        for bad in [
            "sprandom:op=2",
            "sprandom:op=many",
            "sprandom:regions=0",
            "sprandom:size=1G",
            "sprandom:op",
            "fill:op=7%",
            "sequential",
        ] {
            assert!(bad.parse::<Precondition>().is_err(), "{bad}");
        }
    }
}
