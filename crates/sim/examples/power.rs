//! The suite's power tests on simulated drives, as AnandTech ran them: idle and slumber power,
//! sequential writes (and the tail after them), random writes. Prints one row per preset.
//!
//! ```text
//! cargo run --release -p sim --example power -- [PRESET...]
//! ```
//!
//! - idle: link_pm off, rest 60 s, measure 60 s idle;
//! - slumber: link_pm on, rest 60 s, measure 60 s idle;
//! - seq-write: purge, 128 KiB sequential writes at QD32 over the whole span for 60 s (mean
//!   W, over its first 30 s and 30-60 s, and while the pseudo-SLC cache absorbs writes vs
//!   after), then the tail: mean W over the first 60 s after writes stop;
//! - random-write: purge, 4 KiB random writes at QD32 over 8 GiB for 60 s, incompressible.
//!
//! Columns: idle W, slumber mW, seq-write mean W, over 0-30 s and 30-60 s, the second the
//! pseudo-SLC cache was full ("full"), mean W while it absorbed writes ("cacheW", whole
//! seconds before "full") and after ("afterW"), the tail's mean W, random-write mean W and
//! IOPS, and MB/s per W of both writes. `POWER_DETAIL=1` adds each phase's watts by term.

use engine::driver::{idle_run, run, Hooks, Outcome};
use engine::pattern::DataKind;
use engine::workload::{Access, Limit, Workload};
use engine::Device;

const S: u64 = 1_000_000_000;

const PRESETS: &[&str] = &[
    "840-pro-256",
    "extreme-ii-120",
    "extreme-ii-240",
    "extreme-ii-480",
    "ultra-plus-256",
    "840-evo-500",
    "840-evo-1tb",
    "840-evo-msata-500",
    "840-evo-msata-1tb",
];

fn idle_w(dev: &mut dyn Device, rest_s: u64, measure_s: u64) -> f64 {
    idle_run(dev, rest_s * S, None).expect("rest");
    let o = idle_run(dev, measure_s * S, None).expect("idle");
    mean_w(&o)
}

fn mean_w(o: &Outcome) -> f64 {
    let s = &o.measurements.summary;
    s.energy_j.expect("the simulator models energy") / s.duration_s
}

fn writes(access: Access, block_bytes: u32, span_bytes: u64) -> Workload {
    Workload {
        access,
        block_bytes,
        offset_bytes: 0,
        span_bytes,
        read_pct: 0,
        op: None,
        data: DataKind::Incompressible,
        qd: 32,
        limit: Limit {
            duration_ns: Some(60 * S),
            ..Limit::default()
        },
        seed: 1,
    }
}

fn purge(dev: &mut dyn Device) {
    dev.erase(engine::drive::PurgeMethod::Auto, &mut |_| {})
        .expect("purge");
}

/// Mean of the per-second watts over seconds `from..to`.
fn window_w(o: &Outcome, from: f64, to: f64) -> f64 {
    let w: Vec<f64> = o
        .measurements
        .per_second
        .iter()
        .filter(|p| (p.t as f64) >= from && ((p.t + 1) as f64) <= to)
        .filter_map(|p| p.watts)
        .collect();
    w.iter().sum::<f64>() / w.len().max(1) as f64
}

fn counter(o: &Outcome, key: &str) -> f64 {
    let c = o.counters.as_ref().expect("counters");
    c.end[key].as_f64().unwrap_or(0.0) - c.start[key].as_f64().unwrap_or(0.0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let presets: Vec<&str> = if args.is_empty() {
        PRESETS.to_vec()
    } else {
        args.iter().map(String::as_str).collect()
    };
    println!(
        "{:18} {:>6} {:>8} {:>6} {:>6} {:>6} {:>5} {:>6} {:>6} {:>6} {:>6} {:>7} {:>7} {:>7}",
        "preset",
        "idle W",
        "slump mW",
        "seq W",
        "0-30",
        "30-60",
        "full",
        "cacheW",
        "afterW",
        "tail W",
        "rand W",
        "r IOPS",
        "seqMB/W",
        "rndMB/W"
    );
    for name in presets {
        let mut dev = sim::open(name).unwrap_or_else(|e| panic!("{e}"));

        let idle = idle_w(&mut dev, 60, 60);
        dev.set_link_power("on").expect("link_pm");
        let slumber = idle_w(&mut dev, 60, 60);
        dev.set_link_power("off").expect("link_pm");

        purge(&mut dev);
        let cap = dev.geometry().capacity_bytes;
        let seq = run(
            &mut dev,
            &writes(Access::Sequential, 128 << 10, cap),
            Hooks::default(),
        )
        .expect("seq write");
        let seq_w = mean_w(&seq);
        let seq_mbps = seq.measurements.summary.mbps;
        // The second the pseudo-SLC cache stopped absorbing: when the bytes written reach
        // what went into the cache (a purged drive's cache takes writes first).
        let cached = counter(&seq, "slc_cache_hits") * 4096.0;
        let mut full_s = f64::NAN;
        let mut sum = 0.0;
        for p in seq.measurements.per_second.iter().filter(|_| cached > 0.0) {
            sum += p.mbps * 1e6 * p.covered_s.unwrap_or(1.0);
            if sum >= cached {
                full_s = p.t as f64 + 1.0;
                break;
            }
        }
        let end = seq.measurements.summary.duration_s;
        let (cache_w, after_w) = (
            window_w(&seq, 0.0, full_s - 1.0),
            window_w(&seq, full_s, end),
        );
        let tail = idle_run(&mut dev, 60 * S, None).expect("tail");
        let tail_w = mean_w(&tail);

        purge(&mut dev);
        let rnd = run(
            &mut dev,
            &writes(Access::Random, 4096, 8 << 30),
            Hooks::default(),
        )
        .expect("random write");
        let rnd_w = mean_w(&rnd);
        let rnd_iops = rnd.measurements.summary.iops;
        let rnd_mbps = rnd.measurements.summary.mbps;
        if std::env::var_os("POWER_DETAIL").is_some() {
            for (phase, o) in [("seq", &seq), ("tail", &tail), ("rand", &rnd)] {
                let d = o.measurements.summary.duration_s;
                let w = |k: &str| counter(o, k) / d;
                println!(
                    "  {phase:5} W: nand {:.3} transfer {:.3} controller {:.3} idle {:.3} slumber {:.3}; active {:.2} of the time, ctrl busy {:.2}",
                    w("energy_nand_j"),
                    w("energy_transfer_j"),
                    w("energy_controller_j"),
                    w("energy_idle_j"),
                    w("energy_slumber_j"),
                    w("active_ns") / 1e9,
                    w("controller_busy_ns") / 1e9,
                );
            }
        }
        // Drives whose cache takes no sequential writes have no cache phase.
        let (full, cache_w, after_w) = if full_s.is_nan() {
            ("-".to_string(), "-".to_string(), "-".to_string())
        } else {
            (
                format!("{full_s:.0}"),
                format!("{cache_w:.2}"),
                format!("{after_w:.2}"),
            )
        };
        println!(
            "{:18} {:6.3} {:8.1} {:6.2} {:6.2} {:6.2} {:>5} {:>6} {:>6} {:6.2} {:6.2} {:7.0} {:7.1} {:7.1}",
            name,
            idle,
            slumber * 1e3,
            seq_w,
            window_w(&seq, 0.0, 30.0),
            window_w(&seq, 30.0, 60.0),
            full,
            cache_w,
            after_w,
            tail_w,
            rnd_w,
            rnd_iops,
            seq_mbps / seq_w,
            rnd_mbps / rnd_w,
        );
    }
}
