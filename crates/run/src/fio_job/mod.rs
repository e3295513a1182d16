//! `ssdlab run custom --fio FILE`: a fio job file's workload on any target. Each job becomes
//! a custom workload ([`FioJob`]), run one after another as fio runs jobs split by
//! `stonewall`; where ssdlab runs a job differently from fio, its results say so
//! (`deviations`), and an option it cannot run is refused with its name and line.

pub mod export;
mod ini;
pub mod options;

use std::io::Read;
use std::path::Path;

use engine::shape::{Rate, Shape};
use engine::size::Span;
use engine::units::format_size;
use engine::workload::Access;
use engine::Device;
use suite::context::Context;
use suite::methodology::custom;
use suite::params::Overrides;
use suite::result::TestResult;
use suite::TestId;

use options::{Effect, Rw, Spec};

/// The largest job file read: fio's own are a few KiB.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// A job file's jobs, in the order they run.
#[derive(Debug)]
pub struct FioJobs {
    pub jobs: Vec<FioJob>,
}

/// One job as ssdlab runs it.
#[derive(Debug)]
pub struct FioJob {
    /// Its section's name.
    pub name: String,
    /// The workload, on the custom test. Its span is filled by nothing first (fio writes
    /// none before a job).
    pub overrides: Overrides,
    /// fio's end of a job that is not time based: this many passes over its span (`loops`
    /// times `numjobs`), made bytes once the target's size is known.
    pub passes: Option<u64>,
    /// `ramp_time`: run for this long, unmeasured, just before the job.
    pub ramp_s: Option<f64>,
    /// How ssdlab runs it differently from fio, carried in its results.
    pub deviations: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum FioJobError {
    #[error("cannot read it: {0}")]
    Read(#[from] std::io::Error),
    #[error("it is not a regular file: give a fio job file")]
    NotAFile,
    #[error(
        "it is larger than {} : a fio job file is a few KiB",
        format_size(MAX_FILE_BYTES)
    )]
    TooLarge,
    #[error("it is not text (UTF-8): give a fio job file")]
    NotText,
    #[error("line {line}: '{text}': {why}")]
    Syntax {
        line: usize,
        text: String,
        why: &'static str,
    },
    #[error("line {line}: ${{{name}}} is not set in the environment: set it, or write the value")]
    UnsetVariable { line: usize, name: String },
    #[error(
        "line {line}: option '{option}' is not one ssdlab runs{hint}; it takes {}",
        known_options()
    )]
    Unsupported {
        line: usize,
        option: String,
        hint: String,
    },
    #[error("line {line}: {option}: {why}")]
    BadValue {
        line: usize,
        option: String,
        why: String,
    },
    #[error("job '{job}' (line {line}): {why}")]
    Job {
        job: String,
        line: usize,
        why: String,
    },
    #[error(
        "jobs '{first}' and '{second}' (line {line}) run together, as no stonewall is between \
         them, and ssdlab runs one job at a time: add stonewall to '{second}' to run it after \
         '{first}', or give one job numjobs=N for N copies of one workload"
    )]
    Together {
        first: String,
        second: String,
        line: usize,
    },
    #[error("it has no job: add a [name] section with the job's options")]
    NoJobs,
}

fn known_options() -> String {
    options::OPTIONS
        .iter()
        .map(|o| o.name)
        .collect::<Vec<_>>()
        .join(", ")
}

impl FioJobs {
    /// The job file at `path`, read with bounds (a regular file, at most 1 MiB) and its
    /// `${VAR}`s from the environment.
    pub fn read(path: &Path) -> Result<FioJobs, FioJobError> {
        // Checked before opening: opening a FIFO would wait for a writer.
        if !std::fs::metadata(path)?.is_file() {
            return Err(FioJobError::NotAFile);
        }
        let file = std::fs::File::open(path)?;
        let mut bytes = Vec::new();
        file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(FioJobError::TooLarge);
        }
        let text = String::from_utf8(bytes).map_err(|_| FioJobError::NotText)?;
        Ok(FioJobs {
            jobs: parse(&text, &|v| std::env::var(v).ok())?,
        })
    }

    /// Whether a job writes (the target's confirmation depends on it).
    pub fn writes(&self) -> bool {
        self.jobs.iter().any(|j| j.overrides.read_pct != Some(100))
    }

    /// Run every job on `dev`, one after another; a stop ends the run after the job it hit.
    pub fn measure(
        &self,
        dev: &mut dyn Device,
        ctx: &mut Context,
    ) -> Result<Vec<TestResult>, suite::SuiteError> {
        let mut results = Vec::with_capacity(self.jobs.len());
        for (i, job) in self.jobs.iter().enumerate() {
            if ctx.stopped() {
                break;
            }
            let o = job.workload(dev.geometry().capacity_bytes)?;
            if let Some(ramp) = job.ramp_s {
                let ramp = Overrides {
                    duration_s: Some(ramp),
                    bytes: None,
                    ..o.clone()
                };
                suite::methodology::run(TestId::Custom, dev, ctx, &ramp)?;
            }
            for mut r in suite::methodology::run(TestId::Custom, dev, ctx, &o)? {
                r.label = format!("fio job '{}': {}", job.name, r.label);
                // Each job its own results file, in the file's order.
                r.variant = Some(format!("{}-{}", i + 1, file_safe(&job.name)));
                r.deviations.extend(job.deviations.iter().cloned());
                results.push(r);
            }
        }
        Ok(results)
    }
}

/// A job's name as part of a file name: what is not a letter, digit, `_` or `-` is `-`.
fn file_safe(name: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    name.chars()
        .map(|c| if safe(c) { c } else { '-' })
        .collect()
}

impl FioJob {
    /// Its workload on a target of `capacity` bytes: a job that is not time based ends after
    /// its passes over the span.
    fn workload(&self, capacity: u64) -> Result<Overrides, suite::SuiteError> {
        let mut o = self.overrides.clone();
        if let Some(passes) = self.passes {
            let block = o.block_unit(custom::DEFAULTS.block_bytes);
            let (_, span) = suite::params::region(&o, Span::Percent(100.0), capacity, block)?;
            o.bytes = Some(span.saturating_mul(passes));
        }
        Ok(o)
    }
}

/// The jobs of a job file's `text`.
fn parse(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Vec<FioJob>, FioJobError> {
    let mut global = Spec::default();
    let mut jobs: Vec<FioJob> = Vec::new();
    for section in ini::sections(text, env)? {
        let mut spec = if section.is_global() {
            std::mem::take(&mut global)
        } else {
            global.clone()
        };
        for e in &section.entries {
            apply(&mut spec, e)?;
        }
        if section.is_global() {
            global = spec;
            continue;
        }
        if let Some(first) = jobs.first().filter(|_| !spec.stonewall) {
            return Err(FioJobError::Together {
                first: first.name.clone(),
                second: section.name,
                line: section.line,
            });
        }
        jobs.push(job(&section.name, section.line, &spec)?);
    }
    if jobs.is_empty() {
        return Err(FioJobError::NoJobs);
    }
    Ok(jobs)
}

fn apply(spec: &mut Spec, e: &ini::Entry) -> Result<(), FioJobError> {
    let Some(option) = options::find(&e.key) else {
        let names = options::OPTIONS.iter().map(|o| o.name);
        return Err(FioJobError::Unsupported {
            line: e.line,
            option: e.key.clone(),
            hint: crate::suggest::did_you_mean(&e.key, names),
        });
    };
    match &option.effect {
        Effect::Sets(set) => set(spec, e.value.as_deref()).map_err(|why| FioJobError::BadValue {
            line: e.line,
            option: e.given(),
            why,
        }),
        Effect::Ignored(why) => {
            spec.ignored.push(format!("{} ({why})", e.given()));
            Ok(())
        }
    }
}

/// A job's spec as ssdlab's custom workload.
fn job(name: &str, line: usize, s: &Spec) -> Result<FioJob, FioJobError> {
    let refuse = |why: String| FioJobError::Job {
        job: name.to_string(),
        line,
        why,
    };
    let rw = s.rw.unwrap_or(Rw::Read);
    let read_pct = match rw {
        Rw::Read | Rw::RandRead => 100,
        Rw::Write | Rw::RandWrite => 0,
        Rw::ReadWrite | Rw::RandRw => s.rwmixread.unwrap_or(50),
    };
    let smallest = match &s.bssplit {
        Some(mix) => mix.smallest(),
        None => s.bs.unwrap_or(4096),
    };
    if let Some(align) = s.blockalign.filter(|a| *a != u64::from(smallest)) {
        return Err(refuse(format!(
            "blockalign={align}: ssdlab aligns each IO on the smallest block ({smallest} \
             bytes); drop blockalign or make it that size"
        )));
    }
    if s.time_based && s.runtime_s.is_none() {
        return Err(refuse(
            "time_based without runtime would run until stopped: give runtime".into(),
        ));
    }
    let threads = s.numjobs.unwrap_or(1);
    // Sequential copies one after another over the span: ssdlab's own split of it.
    let split = !rw.is_random() && threads > 1 && s.offset_increment.is_some();
    let span = match (s.offset_increment, s.size) {
        (None, size) => size,
        (Some(step), Some(Span::Bytes(part))) if split && step == part => {
            Some(Span::Bytes(part * u64::from(threads)))
        }
        (Some(step), _) => {
            return Err(refuse(format!(
                "offset_increment={step}: ssdlab spreads sequential copies over the span one                  after another, as offset_increment equal to size does; give that, or drop it"
            )))
        }
    };
    let mut deviations = deviations(s, rw, threads, split);
    let qd = match (!s.async_engine, s.iodepth.unwrap_or(1)) {
        (true, depth) if depth > 1 => {
            deviations.push(format!(
                "iodepth={depth} is one IO in flight, as fio's synchronous engines issue, \
                 through io_uring, where fio makes a system call per IO"
            ));
            1
        }
        (true, _) => {
            deviations.push(
                "a synchronous ioengine: ssdlab issues its one IO in flight through io_uring, \
                 where fio makes a system call per IO"
                    .into(),
            );
            1
        }
        (false, depth) => depth,
    };
    let overrides = Overrides {
        qd: Some(qd),
        threads: Some(threads),
        block_bytes: s.bssplit.is_none().then_some(smallest),
        span,
        offset_bytes: s.offset,
        duration_s: s.runtime_s,
        bytes: s
            .io_size
            .filter(|_| !s.time_based)
            .map(|b| b * s.loops.unwrap_or(1) * u64::from(threads)),
        ios: s.number_ios.map(|n| n * u64::from(threads)),
        seed: s.randseed,
        data: s.data,
        read_pct: Some(read_pct),
        access: Some(if rw.is_random() {
            Access::Random
        } else {
            Access::Sequential
        }),
        prefill: Some(false),
        shape: Shape {
            distribution: s.distribution.clone().unwrap_or_default(),
            block_mix: s.bssplit.clone(),
            // fio's rate is each job's; ssdlab's is the threads' together.
            rate: s.rate_iops.map(|iops| Rate {
                iops: iops * f64::from(threads),
                arrivals: s.rate_process.unwrap_or_default(),
            }),
            duty_cycle: None,
        },
        ..Overrides::default()
    };
    Ok(FioJob {
        name: name.to_string(),
        overrides,
        passes: (!s.time_based && s.io_size.is_none() && s.number_ios.is_none())
            .then(|| s.loops.unwrap_or(1) * u64::from(threads)),
        ramp_s: s.ramp_time_s,
        deviations,
    })
}

/// Where ssdlab's run of the job differs from fio's, said in its results.
fn deviations(s: &Spec, rw: Rw, threads: u32, split: bool) -> Vec<String> {
    let mut out = Vec::new();
    if s.direct != Some(true) {
        out.push(
            "fio's direct=0 (its default) goes through the page cache; ssdlab measures the \
             drive with O_DIRECT"
                .to_string(),
        );
    }
    if rw.is_random() && !s.norandommap {
        out.push(
            "random offsets are drawn independently, as with fio's norandommap; without it \
             fio visits each block once per pass"
                .to_string(),
        );
    }
    if !rw.is_random() && threads > 1 && !split {
        out.push(format!(
            "the {threads} sequential jobs each run through their own part of the span (as \
             fio's offset_increment would); fio's copies each start at the offset"
        ));
    }
    if let Some(ramp) = s.ramp_time_s {
        out.push(format!(
            "ramp_time={ramp}s ran as its own unmeasured phase just before the job"
        ));
    }
    if !s.ignored.is_empty() {
        out.push(format!("no effect here: {}", s.ignored.join("; ")));
    }
    out
}

#[cfg(test)]
mod tests;
