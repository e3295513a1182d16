//! The Storage Bench (docs/methodology.md section 7): replay application traces on a clean drive with
//! idle gaps capped at 25 ms, and report average data rate (bytes over disk busy time),
//! disk busy time and average service time. The original traces are proprietary, so by
//! default the synthetic look-alikes of Heavy 2011 and Light 2011 (matching their published
//! statistics) are replayed; `--trace` names another profile (destroyer-2013) or a trace file.
//!
//! ## Targets smaller than a synthetic trace
//! A synthetic trace addresses its profile's span (120 GB for the 2011 traces, the smallest
//! drives the reviews ran them on). Wrapped onto a smaller target, its streams would overlap
//! and its whole volume would land there: Heavy 2011's 106 GB is 12 fills of an 8 GiB drive,
//! a random-write torture no reviewed drive went through (the simulated 8 GiB drive ran it at
//! a write amplification of 7.9 and fell 3x behind the trace; the 120 GB presets run it at
//! 1.2-1.3). So on a smaller target the trace is laid out on the target's capacity, and
//! unless `--trace-scale` says otherwise its IO counts and bytes are scaled by target / span:
//! the drive has the same share of its LBAs read and written as the trace's own drive had.
//! Sizes, sequential share and queue depths are the published ones; busy time is the scaled
//! trace's, and the result says so.

use std::path::Path;

use engine::pattern::DataKind;
use engine::units::format_size;
use engine::Device;
use trace::synth::{Generator, Profile};

use super::{Fixes, Kind, Options, ReviewSection, Test, TestId, Verifies};
use crate::context::Context;
use crate::drive_state::DriveState;
use crate::params::{Overrides, DEFAULT_SEED};
use crate::precondition;
use crate::replay::{self, Mode, Plan, Remap};
use crate::result::{Parameters, TestResult};
use crate::Result;
use crate::SuiteError;

pub const IDLE_CAP_NS: u64 = 25_000_000;
pub const DEFAULT_TRACES: [&str; 2] = ["heavy-2011", "light-2011"];

pub const TEST: Test = Test {
    id: TestId::StorageBench,
    kind: Kind::Replay,
    section: Some(ReviewSection::StorageBench),
    about: "the Storage Bench: replay Heavy 2011 and Light 2011 look-alikes (or --trace) with idle capped at 25 ms on a clean drive (--state full: 80% written first); scaled to a target smaller than their 120 GB",
    defaults: None,
    writes: super::always,
    takes: Options::WORKLOAD.with(Options::STATE),
    fixes: Fixes::Nothing,
    verifies: Verifies::Never,
    run,
};

pub fn run(dev: &mut dyn Device, ctx: &mut Context, o: &Overrides) -> Result<Vec<TestResult>> {
    let names: Vec<String> = match &o.trace {
        Some(t) => vec![t.clone()],
        None => DEFAULT_TRACES.iter().map(|s| s.to_string()).collect(),
    };
    let plan = Plan {
        mode: Mode::IdleCapped {
            cap_ns: IDLE_CAP_NS,
            speed: 1.0,
        },
        remap: Remap::Wrap,
        max_in_flight: o.qd.unwrap_or(256),
        max_io_bytes: replay::MAX_IO_BYTES,
        data: o.data.unwrap_or(DataKind::Incompressible),
        seed: o.seed.unwrap_or(DEFAULT_SEED),
    };
    let mut results = Vec::new();
    for name in names {
        let capacity = dev.geometry().capacity_bytes;
        let profile = Profile::by_name(&name);
        let fit = profile
            .as_ref()
            .map(|p| fit_to_target(p, capacity, o.trace_scale))
            .transpose()?;
        let scale = fit.as_ref().map_or(1.0, |f| f.scale);
        let state = o.state.unwrap_or_default();
        let prepared = match state {
            // Clean, as the 2013 reviews ran it: the trace's own writes fill the drive.
            DriveState::Empty => vec![precondition::purge(ctx, dev, 0, capacity)],
            DriveState::Full => state.prepare(ctx, dev, 128 << 10, plan.data, plan.seed)?.phases,
        };
        if ctx.stopped() {
            return Err(SuiteError::Interrupted);
        }
        let named = |base: String| match state {
            DriveState::Empty => base,
            DriveState::Full => format!("{base}-full"),
        };
        let mut result = if let (Some(mut profile), Some(fit)) = (profile, &fit) {
            let recorded_qd = Some(profile.avg_queue_depth);
            profile.capacity_bytes = fit.span_bytes;
            let gen = Generator::new(profile, scale, plan.seed).map_err(|e| SuiteError::Parameter(e.to_string()))?;
            let total = gen.total();
            let label = if scale == 1.0 {
                format!("synthetic {name}")
            } else {
                format!("synthetic {name} at scale {}", short(scale))
            };
            replay::run(
                dev,
                ctx,
                TestId::StorageBench,
                Some(named(name.clone())),
                &label,
                gen,
                plan,
                recorded_qd,
                Some(total),
            )?
        } else {
            let path = Path::new(&name);
            let reader = trace::open(path)
                .map_err(|e| SuiteError::Parameter(format!("--trace {name}: {e}")))?;
            let mut bad = None;
            let records = reader.map_while(|r| match r {
                Ok(r) => Some(r),
                Err(e) => {
                    bad = Some(e);
                    None
                }
            });
            let stem = path
                .file_stem()
                .map_or("trace".into(), |s| s.to_string_lossy().into_owned());
            let r = replay::run(
                dev,
                ctx,
                TestId::StorageBench,
                Some(named(stem)),
                &name,
                records,
                plan,
                None,
                None,
            )?;
            if let Some(e) = bad {
                return Err(SuiteError::Parameter(format!("{name}: {e}")));
            }
            r
        };
        result.preconditioning.splice(0..0, prepared);
        if let (Some(f), Parameters::Replay(p)) = (&fit, &mut result.parameters) {
            p.trace_scale = Some(scale);
            p.trace_span_bytes = Some(f.span_bytes);
        }
        match fit.and_then(|f| f.note) {
            // Laid out and scaled by the methodology's own rule for a smaller drive: an
            // adaptation; a scale the user asked for is a deviation.
            Some(note) if o.trace_scale.is_none() => result.adaptations.push(note),
            Some(note) => result.deviations.push(note),
            None if scale != 1.0 => result.deviations.push(format!(
                "trace scaled to {} of its published size",
                short(scale)
            )),
            None => {}
        }
        let stop = !result.complete;
        results.push(result);
        if stop {
            break;
        }
    }
    Ok(results)
}

/// How a synthetic trace is laid out on a target.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// The span the trace addresses (its profile's, or the target's when that is smaller).
    pub span_bytes: u64,
    /// IO counts and bytes, as a share of the published ones.
    pub scale: f64,
    /// The deviation from the methodology to record, when the trace did not fit.
    pub note: Option<String>,
}

/// Lay `profile` out on a target of `capacity` bytes (see the module docs): on a target
/// smaller than the trace's span, the span is the target's and, unless `asked` gives a scale,
/// the trace is scaled by target / span. A target too small to hold the trace's streams is
/// refused.
pub fn fit_to_target(profile: &Profile, capacity: u64, asked: Option<f64>) -> Result<Fit> {
    let span = profile.capacity_bytes;
    if capacity >= span {
        return Ok(Fit {
            span_bytes: span,
            scale: asked.unwrap_or(1.0),
            note: None,
        });
    }
    let min = profile.min_span_bytes();
    if capacity < min {
        return Err(SuiteError::Parameter(format!(
            "the target ({}) is too small for the synthetic {} trace: it needs at least {}",
            format_size(capacity),
            profile.name,
            format_size(min)
        )));
    }
    let ratio = capacity as f64 / span as f64;
    let scale = asked.unwrap_or(ratio);
    let gb = |b: f64| format!("{:.1} GB", b / 1e9);
    let laid = format!(
        "the {} trace spans {}, more than the target's {}: laid out on the target",
        profile.name,
        gb(span as f64),
        gb(capacity as f64)
    );
    let note = if asked.is_some() {
        format!(
            "{laid}, and scaled to {} of its published size as asked ({} written)",
            short(scale),
            gb(profile.bytes_written as f64 * scale)
        )
    } else {
        format!(
            "{laid} and scaled to {} of its published size ({} written instead of {}), so \
             that the drive has the same share of its capacity written as on a drive of the \
             trace's span; the data rate and service time compare with full runs, the busy \
             time is the scaled trace's",
            short(scale),
            gb(profile.bytes_written as f64 * scale),
            gb(profile.bytes_written as f64)
        )
    };
    Ok(Fit {
        span_bytes: capacity,
        scale,
        note: Some(note),
    })
}

/// A scale to three significant digits: 0.0716, 0.5, 2, 0.00005.
fn short(x: f64) -> String {
    engine::units::significant(x, 3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_fits_a_larger_target_unchanged() {
        let p = Profile::heavy_2011();
        let f = fit_to_target(&p, 256_000_000_000, None).unwrap();
        assert_eq!(
            (f.span_bytes, f.scale, f.note),
            (p.capacity_bytes, 1.0, None)
        );
        let f = fit_to_target(&p, 256_000_000_000, Some(0.02)).unwrap();
        assert_eq!((f.span_bytes, f.scale), (p.capacity_bytes, 0.02));
    }

    #[test]
    fn a_smaller_target_gets_the_trace_in_proportion_and_says_so() {
        let p = Profile::heavy_2011();
        let cap = 8u64 << 30;
        let f = fit_to_target(&p, cap, None).unwrap();
        assert_eq!(f.span_bytes, cap);
        assert!((f.scale - cap as f64 / 120e9).abs() < 1e-12);
        let note = f.note.unwrap();
        assert!(
            note.contains("120.0 GB") && note.contains("8.6 GB"),
            "{note}"
        );
        assert!(
            note.contains("0.0716") && note.contains("busy time"),
            "{note}"
        );
        // An explicit scale is kept; the layout still fits the target.
        let f = fit_to_target(&p, cap, Some(0.02)).unwrap();
        assert_eq!((f.span_bytes, f.scale), (cap, 0.02));
        assert!(f.note.unwrap().contains("as asked"));
    }

    #[test]
    fn scales_read_to_three_digits() {
        let got: Vec<String> = [0.071_582_4, 0.5, 2.0, 0.000_05, 0.02, 12.34]
            .map(short)
            .into();
        assert_eq!(got, ["0.0716", "0.5", "2", "0.00005", "0.02", "12.3"]);
    }

    #[test]
    fn a_target_too_small_for_the_streams_is_refused() {
        let p = Profile::destroyer_2013();
        let e = fit_to_target(&p, 4 << 20, None).unwrap_err().to_string();
        assert!(
            e.contains("too small") && e.contains("destroyer-2013"),
            "{e}"
        );
        // The smallest it accepts generates.
        let min = p.min_span_bytes();
        let f = fit_to_target(&p, min, None).unwrap();
        let mut q = p.clone();
        q.capacity_bytes = f.span_bytes;
        let g = Generator::new(q, 0.0001, 1).unwrap();
        assert!(g
            .take(5000)
            .all(|r| r.offset_bytes + r.len_bytes as u64 <= min));
    }
}
