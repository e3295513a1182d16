//! The fio options a job file may use, one record each (as fio's `options.c`): its name and
//! aliases, what it means here, and how its value sets the job's [`Spec`]. An option not
//! listed is refused by name and line; one listed as [`Effect::Ignored`] changes nothing
//! about the workload ssdlab runs, and says why.

use engine::pattern::DataKind;
use engine::shape::{Arrivals, BlockMix, Distribution};
use engine::size::{parse_size, Span};

/// One job's options as fio would read them, before they become ssdlab's workload.
#[derive(Clone, Debug, Default)]
pub struct Spec {
    pub rw: Option<Rw>,
    pub rwmixread: Option<u8>,
    pub bs: Option<u32>,
    pub bssplit: Option<BlockMix>,
    pub blockalign: Option<u64>,
    pub iodepth: Option<u32>,
    pub numjobs: Option<u32>,
    pub rate_iops: Option<f64>,
    pub rate_process: Option<Arrivals>,
    pub distribution: Option<Distribution>,
    pub size: Option<Span>,
    pub offset: Option<u64>,
    pub runtime_s: Option<f64>,
    pub time_based: bool,
    pub ramp_time_s: Option<f64>,
    pub norandommap: bool,
    pub direct: Option<bool>,
    pub loops: Option<u64>,
    /// `io_size` and `number_ios`: each copy's bytes or IOs before it ends.
    pub io_size: Option<u64>,
    pub number_ios: Option<u64>,
    /// Each copy's start past the one before: as ssdlab splits a sequential span only.
    pub offset_increment: Option<u64>,
    pub randseed: Option<u64>,
    /// From `refill_buffers`, `buffer_compress_percentage` and `zero_buffers`.
    pub data: Option<DataKind>,
    pub stonewall: bool,
    /// The ioengine: whether it keeps `iodepth` IOs in flight; fio's synchronous engines,
    /// psync its default, have one whatever `iodepth` says.
    pub async_engine: bool,
    /// Options that change nothing here, as given: said in the results.
    pub ignored: Vec<String>,
}

/// fio's `rw`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rw {
    Read,
    Write,
    RandRead,
    RandWrite,
    /// Sequential, mixed by `rwmixread`.
    ReadWrite,
    RandRw,
}

impl Rw {
    pub fn is_random(self) -> bool {
        matches!(self, Rw::RandRead | Rw::RandWrite | Rw::RandRw)
    }
}

/// What an option does to the job.
pub enum Effect {
    /// Sets part of the spec from the value (`None` for a switch given alone).
    Sets(fn(&mut Spec, Option<&str>) -> Result<(), String>),
    /// Changes nothing ssdlab runs (reporting, naming, the target's path): the reason.
    Ignored(&'static str),
}

pub struct FioOption {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub effect: Effect,
}

impl FioOption {
    pub fn is(&self, key: &str) -> bool {
        self.name == key || self.aliases.contains(&key)
    }
}

/// The option called `key`, if ssdlab knows it.
pub fn find(key: &str) -> Option<&'static FioOption> {
    OPTIONS.iter().find(|o| o.is(key))
}

macro_rules! set {
    ($f:expr) => {
        Effect::Sets($f)
    };
}

pub static OPTIONS: &[FioOption] = &[
    FioOption {
        name: "rw",
        aliases: &["readwrite"],
        effect: set!(|s, v| {
            s.rw = Some(rw(text(v)?)?);
            Ok(())
        }),
    },
    FioOption {
        name: "rwmixread",
        aliases: &[],
        effect: set!(|s, v| {
            s.rwmixread = Some(percent(v)?);
            Ok(())
        }),
    },
    FioOption {
        name: "rwmixwrite",
        aliases: &[],
        effect: set!(|s, v| {
            s.rwmixread = Some(100 - percent(v)?);
            Ok(())
        }),
    },
    FioOption {
        name: "bs",
        aliases: &["blocksize"],
        effect: set!(|s, v| {
            s.bs = Some(block(one_direction(text(v)?)?)?);
            Ok(())
        }),
    },
    FioOption {
        name: "bsrange",
        aliases: &["blocksize_range"],
        effect: set!(|s, v| {
            s.bs = Some(fixed_range(text(v)?)?);
            Ok(())
        }),
    },
    FioOption {
        name: "bssplit",
        aliases: &[],
        effect: set!(|s, v| {
            let mix = one_direction(text(v)?)?;
            s.bssplit = Some(
                mix.parse()
                    .map_err(|e: engine::shape::BlockMixError| e.to_string())?,
            );
            Ok(())
        }),
    },
    FioOption {
        name: "blockalign",
        aliases: &["ba"],
        effect: set!(|s, v| {
            s.blockalign = Some(size(one_direction(text(v)?)?)?);
            Ok(())
        }),
    },
    FioOption {
        name: "iodepth",
        aliases: &[],
        effect: set!(|s, v| {
            s.iodepth = Some(count(v, engine::workload::MAX_QD)?);
            Ok(())
        }),
    },
    FioOption {
        name: "numjobs",
        aliases: &[],
        effect: set!(|s, v| {
            s.numjobs = Some(count(v, engine::workload::MAX_THREADS)?);
            Ok(())
        }),
    },
    FioOption {
        name: "rate_iops",
        aliases: &[],
        effect: set!(|s, v| {
            let iops: f64 = one_direction(text(v)?)?
                .parse()
                .map_err(|_| "give IOs per second, e.g. 1000".to_string())?;
            s.rate_iops = Some(iops).filter(|r| *r > 0.0 && r.is_finite());
            Ok(())
        }),
    },
    FioOption {
        name: "rate_process",
        aliases: &[],
        effect: set!(|s, v| {
            s.rate_process = Some(match text(v)? {
                "linear" => Arrivals::Uniform,
                "poisson" => Arrivals::Poisson,
                other => return Err(format!("'{other}': use linear or poisson")),
            });
            Ok(())
        }),
    },
    FioOption {
        name: "random_distribution",
        aliases: &[],
        effect: set!(|s, v| {
            s.distribution = Some(
                text(v)?
                    .parse()
                    .map_err(|e: engine::shape::DistributionError| e.to_string())?,
            );
            Ok(())
        }),
    },
    FioOption {
        name: "size",
        aliases: &[],
        effect: set!(|s, v| {
            s.size = Some(Span::parse(text(v)?).map_err(|e| e.to_string())?);
            Ok(())
        }),
    },
    FioOption {
        name: "offset",
        aliases: &["fileoffset"],
        effect: set!(|s, v| {
            s.offset = Some(offset(text(v)?)?);
            Ok(())
        }),
    },
    FioOption {
        name: "runtime",
        aliases: &["timeout"],
        effect: set!(|s, v| {
            s.runtime_s = Some(seconds(text(v)?)?);
            Ok(())
        }),
    },
    FioOption {
        name: "time_based",
        aliases: &[],
        effect: set!(|s, v| {
            s.time_based = switch(v)?;
            Ok(())
        }),
    },
    FioOption {
        name: "ramp_time",
        aliases: &[],
        effect: set!(|s, v| {
            s.ramp_time_s = Some(seconds(text(v)?)?);
            Ok(())
        }),
    },
    FioOption {
        name: "norandommap",
        aliases: &[],
        effect: set!(|s, v| {
            s.norandommap = switch(v)?;
            Ok(())
        }),
    },
    FioOption {
        name: "direct",
        aliases: &[],
        effect: set!(|s, v| {
            s.direct = Some(switch(v)?);
            Ok(())
        }),
    },
    FioOption {
        name: "buffered",
        aliases: &[],
        effect: set!(|s, v| {
            s.direct = Some(!switch(v)?);
            Ok(())
        }),
    },
    FioOption {
        name: "loops",
        aliases: &[],
        effect: set!(|s, v| {
            s.loops = Some(count(v, u32::MAX)?.into());
            Ok(())
        }),
    },
    FioOption {
        name: "stonewall",
        aliases: &["wait_for_previous"],
        effect: set!(|s, v| {
            s.stonewall = switch(v)?;
            Ok(())
        }),
    },
    FioOption {
        name: "ioengine",
        aliases: &[],
        effect: set!(|s, v| {
            s.async_engine = match text(v)? {
                "io_uring" | "libaio" | "posixaio" => true,
                "sync" | "psync" | "vsync" | "pvsync" | "pvsync2" => false,
                other => {
                    return Err(format!(
                "ssdlab drives the target itself (io_uring); it stands in for fio's block engines \
                 (io_uring, libaio, posixaio, psync, sync, pvsync, pvsync2), not '{other}'"
            ))
                }
            };
            Ok(())
        }),
    },
    FioOption {
        name: "io_size",
        aliases: &["io_limit"],
        effect: set!(|s, v| {
            s.io_size = Some(size(text(v)?)?).filter(|b| *b > 0);
            Ok(())
        }),
    },
    FioOption {
        name: "number_ios",
        aliases: &[],
        effect: set!(|s, v| {
            s.number_ios = Some(
                text(v)?
                    .parse::<u64>()
                    .map_err(|_| "give a whole number".to_string())?,
            )
            .filter(|n| *n > 0);
            Ok(())
        }),
    },
    FioOption {
        name: "offset_increment",
        aliases: &[],
        effect: set!(|s, v| {
            s.offset_increment = Some(size(text(v)?)?);
            Ok(())
        }),
    },
    FioOption {
        name: "randseed",
        aliases: &[],
        effect: set!(|s, v| {
            s.randseed = Some(
                text(v)?
                    .parse()
                    .map_err(|_| "give a whole number".to_string())?,
            );
            Ok(())
        }),
    },
    FioOption {
        name: "refill_buffers",
        aliases: &[],
        effect: set!(|s, v| {
            if switch(v)? && s.data.is_none() {
                s.data = Some(DataKind::Incompressible);
            }
            Ok(())
        }),
    },
    FioOption {
        name: "buffer_compress_percentage",
        aliases: &[],
        effect: set!(|s, v| {
            s.data = Some(match percent(v)? {
                0 => DataKind::Incompressible,
                100 => DataKind::Zeros,
                compress_pct => DataKind::Compressible { compress_pct },
            });
            Ok(())
        }),
    },
    FioOption {
        name: "zero_buffers",
        aliases: &[],
        effect: set!(|s, v| {
            if switch(v)? {
                s.data = Some(DataKind::Zeros);
            }
            Ok(())
        }),
    },
    FioOption {
        name: "randrepeat",
        aliases: &[],
        effect: Effect::Ignored("ssdlab's offsets repeat by --seed"),
    },
    FioOption {
        name: "name",
        aliases: &[],
        effect: Effect::Ignored("the job is named by its section"),
    },
    FioOption {
        name: "description",
        aliases: &[],
        effect: Effect::Ignored("a description only"),
    },
    FioOption {
        name: "filename",
        aliases: &[],
        effect: Effect::Ignored("the job runs on --target"),
    },
    FioOption {
        name: "directory",
        aliases: &[],
        effect: Effect::Ignored("the job runs on --target"),
    },
    FioOption {
        name: "group_reporting",
        aliases: &[],
        effect: Effect::Ignored("each job is one result, its threads reported together"),
    },
    FioOption {
        name: "new_group",
        aliases: &[],
        effect: Effect::Ignored("reporting groups: each job is one result"),
    },
    FioOption {
        name: "thread",
        aliases: &[],
        effect: Effect::Ignored("ssdlab's jobs are threads"),
    },
    FioOption {
        name: "invalidate",
        aliases: &[],
        effect: Effect::Ignored("ssdlab's IO bypasses the page cache"),
    },
    FioOption {
        name: "io_submit_mode",
        aliases: &[],
        effect: Effect::Ignored("ssdlab submits from each job's own thread"),
    },
];

fn text(v: Option<&str>) -> Result<&str, String> {
    v.filter(|t| !t.is_empty())
        .ok_or_else(|| "give it a value (name=value)".to_string())
}

/// `read,write` pairs are fio's per-direction values: ssdlab takes one for both.
fn one_direction(v: &str) -> Result<&str, String> {
    match v.split_once(',') {
        None => Ok(v),
        Some((r, w)) if r == w || w.is_empty() => Ok(r),
        Some(_) => Err(format!(
            "'{v}' gives reads and writes different values: ssdlab uses one value for both"
        )),
    }
}

fn rw(v: &str) -> Result<Rw, String> {
    if v.contains(':') {
        return Err(format!(
            "'{v}': an offset modifier (rw=...:N) skips or reverses; ssdlab runs plain \
             sequential or random access"
        ));
    }
    Ok(match v {
        "read" => Rw::Read,
        "write" => Rw::Write,
        "randread" => Rw::RandRead,
        "randwrite" => Rw::RandWrite,
        "rw" | "readwrite" => Rw::ReadWrite,
        "randrw" => Rw::RandRw,
        other => {
            return Err(format!(
                "'{other}': ssdlab runs read, write, randread, randwrite, rw (readwrite) and randrw"
            ))
        }
    })
}

fn switch(v: Option<&str>) -> Result<bool, String> {
    match v {
        None | Some("1") | Some("true") => Ok(true),
        Some("0") | Some("false") => Ok(false),
        Some(other) => Err(format!("'{other}': give 1 or 0, or the option alone for 1")),
    }
}

fn percent(v: Option<&str>) -> Result<u8, String> {
    text(v)?
        .parse::<u8>()
        .ok()
        .filter(|p| *p <= 100)
        .ok_or_else(|| "give a percentage from 0 to 100".to_string())
}

fn count(v: Option<&str>, max: u32) -> Result<u32, String> {
    text(v)?
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=max).contains(n))
        .ok_or_else(|| format!("give a whole number from 1 to {max}"))
}

fn size(v: &str) -> Result<u64, String> {
    parse_size(v).map_err(|e| e.to_string())
}

fn block(v: &str) -> Result<u32, String> {
    let b = size(v)?;
    if b < 512 {
        return Err(format!("'{v}': a block is at least 512 bytes (one sector)"));
    }
    u32::try_from(b).map_err(|_| format!("'{v}' is too large for one IO (below 4 GiB)"))
}

/// `bsrange=4k-4k`: one size only, as ssdlab does not draw sizes from a range.
fn fixed_range(v: &str) -> Result<u32, String> {
    let v = one_direction(v)?;
    let (low, high) = v.split_once('-').unwrap_or((v, v));
    let (low, high) = (block(low.trim())?, block(high.trim())?);
    if low != high {
        return Err(format!(
            "'{v}': ssdlab does not draw sizes from a range; give bssplit with the sizes and \
             their shares"
        ));
    }
    Ok(low)
}

/// Bytes from the start; a share of the target only as 0%.
fn offset(v: &str) -> Result<u64, String> {
    match v.strip_suffix('%') {
        Some(p) if p.trim().parse::<f64>() == Ok(0.0) => Ok(0),
        Some(_) => Err(format!("'{v}': give the offset in bytes, e.g. 1G")),
        None => size(v),
    }
}

/// fio's times: seconds unless a unit says otherwise (`10s`, `5m`, `1h`, `500ms`).
fn seconds(v: &str) -> Result<f64, String> {
    engine::size::parse_duration(v).map_err(|e| e.to_string())
}
