//! The Storage Bench (METHODOLOGY section 7): replay application traces on a clean drive with
//! idle gaps capped at 25 ms, and report average data rate (bytes over disk busy time),
//! disk busy time and average service time. The original traces are proprietary, so by
//! default the synthetic look-alikes of Heavy 2011 and Light 2011 (matching their published
//! statistics) are replayed; `--trace` names another profile (destroyer-2013) or a trace file.

use std::path::Path;

use engine::pattern::DataKind;
use engine::Device;
use trace::synth::{Generator, Profile};

use crate::context::Context;
use crate::params::{Overrides, DEFAULT_SEED};
use crate::precondition;
use crate::replay::{self, Mode, Plan, Remap};
use crate::result::TestResult;
use crate::SuiteError;

pub const IDLE_CAP_NS: u64 = 25_000_000;
pub const DEFAULT_TRACES: [&str; 2] = ["heavy-2011", "light-2011"];

pub fn run(
    dev: &mut dyn Device,
    ctx: &mut Context,
    o: &Overrides,
) -> Result<Vec<TestResult>, SuiteError> {
    let names: Vec<String> = match &o.trace {
        Some(t) => vec![t.clone()],
        None => DEFAULT_TRACES.iter().map(|s| s.to_string()).collect(),
    };
    let scale = o.trace_scale.unwrap_or(1.0);
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
        let purge = precondition::purge(ctx, dev, 0, capacity);
        let mut result = if let Some(profile) = Profile::by_name(&name) {
            let recorded_qd = Some(profile.avg_queue_depth);
            let gen = Generator::new(profile, scale, plan.seed).map_err(SuiteError::Parameter)?;
            let total = gen.total();
            let label = if scale == 1.0 {
                format!("synthetic {name}")
            } else {
                format!("synthetic {name} at scale {scale}")
            };
            replay::run(
                dev,
                ctx,
                "storage-bench",
                Some(name.clone()),
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
                "storage-bench",
                Some(stem),
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
        result.preconditioning.insert(0, purge);
        if scale != 1.0 {
            result
                .deviations
                .push(format!("trace scaled to {scale} of its published size"));
        }
        let stop = !result.complete;
        results.push(result);
        if stop {
            break;
        }
    }
    Ok(results)
}
