//! `--fio-job FILE`: the fio job file that runs each measured phase of a run's results on the
//! same target, from the workload each result records, so any figure can be cross-checked
//! with fio itself. What fio cannot express (a simulated target, bursts at a duty cycle, the
//! preconditioning ssdlab did first) is a comment in the file. `--fio` reads it back to the
//! same workloads.

use std::fmt::Write;

use engine::pattern::DataKind;
use engine::shape::Arrivals;
use engine::workload::{Access, Workload};
use engine::Op;
use suite::result::{Parameters, TestResult};

/// What every job shares: ssdlab's engine, its IO and its offsets, one job at a time.
const GLOBAL: &str = "[global]\nioengine=io_uring\ndirect=1\nnorandommap=1\nstonewall\n";

/// The job file for `results` of a run on `target` (its spec, as `--target` named it).
pub fn job_file(results: &[TestResult], target: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "; written by ssdlab {}: each measured phase of the run's results, one job each, run one\n\
         ; after another (stonewall)",
        env!("CARGO_PKG_VERSION")
    );
    out.push_str(GLOBAL);
    match target_path(target) {
        Some(path) => {
            let _ = writeln!(out, "filename={path}");
        }
        None => {
            let _ = writeln!(
                out,
                "; the target was {target}, which fio cannot open: give filename= a device or file"
            );
        }
    }
    for (i, r) in results.iter().enumerate() {
        let _ = writeln!(out, "\n; {}", r.label);
        for phase in &r.preconditioning {
            let _ = writeln!(
                out,
                "; first, not in this file: {} ({})",
                phase.name, phase.description
            );
        }
        let section = format!("[{}-{}]", i + 1, r.file_stem());
        match &r.parameters {
            Parameters::Workload(w) => {
                let _ = write!(out, "{section}\n{}", job(w));
            }
            Parameters::Trim(t) => {
                let _ = write!(
                    out,
                    "; the torture only: the TRIM and the read passes around it are not fio's\n\
                     {section}\n{}",
                    job(&t.torture)
                );
            }
            _ => {
                let _ = writeln!(out, "; measures no one workload fio can run");
            }
        }
    }
    out
}

/// The path fio opens for a target spec: a device, or the file of a `file:` target.
fn target_path(target: &str) -> Option<&str> {
    if target.starts_with("sim:") {
        return None;
    }
    match target.strip_prefix("file:") {
        Some(rest) => Some(rest.split(':').next().unwrap_or(rest)),
        None => Some(target),
    }
}

/// One workload as a job's options.
pub fn job(w: &Workload) -> String {
    let mut out = String::new();
    let mut set = |k: &str, v: String| {
        let _ = writeln!(out, "{k}={v}");
    };
    let random = w.access == Access::Random;
    let rw = match (w.op, w.read_pct, random) {
        (Some(Op::Discard), _, true) => "randtrim",
        (Some(Op::Discard), _, false) => "trim",
        (_, 100, true) => "randread",
        (_, 100, false) => "read",
        (_, 0, true) => "randwrite",
        (_, 0, false) => "write",
        (_, _, true) => "randrw",
        (_, _, false) => "rw",
    };
    set("rw", rw.into());
    if w.op.is_none() && !matches!(w.read_pct, 0 | 100) {
        set("rwmixread", w.read_pct.to_string());
    }
    match &w.shape.block_mix {
        Some(mix) => {
            let split: Vec<String> = mix
                .shares()
                .iter()
                .map(|s| format!("{}/{}", s.bytes, s.pct))
                .collect();
            set("bssplit", split.join(":"));
        }
        None => set("bs", w.block_bytes.to_string()),
    }
    set("iodepth", w.qd.to_string());
    let threads = u64::from(w.threads.max(1));
    // ssdlab's span, limits and rate are the threads' together; fio's are each job's.
    let sequential_parts = w.access == Access::Sequential && threads > 1;
    if threads > 1 {
        set("numjobs", threads.to_string());
    }
    set("offset", w.offset_bytes.to_string());
    if sequential_parts {
        let part = w.for_thread(0).span_bytes;
        set("size", part.to_string());
        set("offset_increment", part.to_string());
    } else {
        set("size", w.span_bytes.to_string());
    }
    if !w.shape.distribution.is_uniform() && random {
        set("random_distribution", w.shape.distribution.to_string());
    }
    if let Some(rate) = w.shape.rate {
        set("rate_iops", format!("{}", rate.iops / threads as f64));
        if rate.arrivals == Arrivals::Poisson {
            set("rate_process", "poisson".into());
        }
    }
    if let Some(ns) = w.limit.duration_ns {
        set("runtime", format!("{}ms", ns.div_ceil(1_000_000)));
    }
    if let Some(bytes) = w.limit.bytes {
        set("io_size", (bytes / threads).to_string());
    }
    if let Some(ios) = w.limit.ios {
        set("number_ios", (ios / threads).to_string());
    }
    if w.limit.duration_ns.is_some() && w.limit.bytes.is_none() && w.limit.ios.is_none() {
        set("time_based", "1".into());
    }
    match w.data {
        DataKind::Incompressible => set("refill_buffers", "1".into()),
        DataKind::Compressible { compress_pct } => {
            set("refill_buffers", "1".into());
            set("buffer_compress_percentage", compress_pct.to_string());
        }
        DataKind::Zeros => set("zero_buffers", "1".into()),
    }
    set("randseed", w.seed.to_string());
    if let Some(d) = &w.shape.duty_cycle {
        let _ = writeln!(
            out,
            "; not in fio's terms: bursts of {} bytes at {}% duty (fio's thinktime comes closest)",
            d.burst_bytes, d.busy_pct
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::shape::{BlockMix, Rate, Shape};
    use engine::workload::Limit;

    fn workload() -> Workload {
        Workload {
            access: Access::Random,
            block_bytes: 4096,
            offset_bytes: 1 << 20,
            span_bytes: 64 << 20,
            read_pct: 70,
            op: None,
            data: DataKind::Incompressible,
            qd: 16,
            limit: Limit {
                duration_ns: Some(5_000_000_000),
                bytes: None,
                ios: None,
            },
            seed: 42,
            shape: Shape::default(),
            threads: 1,
        }
    }

    /// The job `--fio` reads back from the job written for `w`, on a 1 GiB target.
    fn read_back(w: &Workload) -> suite::params::Overrides {
        let text = format!("{GLOBAL}[j]\n{}", job(w));
        let jobs = super::super::parse(&text, &|_| None).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(jobs.len(), 1);
        assert!(
            jobs[0].deviations.is_empty(),
            "{text}\n{:?}",
            jobs[0].deviations
        );
        jobs[0].workload(1 << 30).unwrap()
    }

    fn assert_same(w: &Workload, o: &suite::params::Overrides) {
        assert_eq!(o.access, Some(w.access));
        assert_eq!(o.read_pct, Some(w.read_pct));
        assert_eq!(o.qd, Some(w.qd));
        assert_eq!(o.threads, Some(w.threads));
        assert_eq!(o.offset_bytes, Some(w.offset_bytes));
        assert_eq!(o.span, Some(engine::size::Span::Bytes(w.span_bytes)));
        assert_eq!(o.duration_s.map(|s| (s * 1e9) as u64), w.limit.duration_ns);
        assert_eq!((o.bytes, o.ios), (w.limit.bytes, w.limit.ios));
        assert_eq!(o.seed, Some(w.seed));
        assert_eq!(o.data, Some(w.data));
        assert_eq!(o.shape, w.shape);
        if w.shape.block_mix.is_none() {
            assert_eq!(o.block_bytes, Some(w.block_bytes));
        }
    }

    #[test]
    fn a_workload_written_as_a_fio_job_reads_back_as_itself() {
        let plain = workload();
        let sequential_threads = Workload {
            access: Access::Sequential,
            threads: 4,
            block_bytes: 131072,
            read_pct: 0,
            limit: Limit {
                duration_ns: None,
                bytes: Some(256 << 20),
                ios: None,
            },
            data: DataKind::Compressible { compress_pct: 50 },
            ..workload()
        };
        let shaped = Workload {
            threads: 2,
            read_pct: 100,
            limit: Limit {
                duration_ns: Some(2_000_000_000),
                bytes: None,
                ios: Some(10_000),
            },
            data: DataKind::Zeros,
            shape: Shape {
                distribution: "zoned:50/5:30/15:20/80".parse().unwrap(),
                block_mix: Some("4K:67,8K:10,16K:23".parse::<BlockMix>().unwrap()),
                rate: Some(Rate {
                    iops: 2000.0,
                    arrivals: Arrivals::Poisson,
                }),
                duty_cycle: None,
            },
            ..workload()
        };
        for w in [plain, sequential_threads, shaped] {
            assert_same(&w, &read_back(&w));
        }
    }

    #[test]
    fn a_simulated_target_is_named_in_a_comment_and_a_file_target_by_its_path() {
        assert_eq!(target_path("file:/tmp/x.img:1G"), Some("/tmp/x.img"));
        assert_eq!(target_path("/dev/nvme0n1"), Some("/dev/nvme0n1"));
        assert_eq!(target_path("sim:840-evo-250"), None);
    }
}
