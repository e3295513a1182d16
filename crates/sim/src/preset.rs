//! Presets (models of real drives, built from their spec sheets), `key=value` overrides and
//! TOML files. A spec is what follows `sim:`:
//!
//! - `default`, `ultra-plus-256`, ... a preset by name;
//! - `ultra-plus-256,op=25%,gc=fifo,capacity=8GiB`: a preset with overrides, applied in order
//!   except that `cell` and `link` go first (they reset the timings they imply);
//! - `op=25%,gc=fifo`: overrides on `default`;
//! - `path/to/drive.toml[,key=value...]`: a TOML table of the same keys, with an optional
//!   `preset = "name"` to start from (default `default`).

use crate::config::{Config, LinkKind};
use crate::error::SimError;
use crate::gc::GcPolicy;
use crate::geometry::CellType;
use crate::timing::NandLatency;

/// Every key an override may set, with what it means.
pub const KEYS: &[(&str, &str)] = &[
    (
        "capacity",
        "host-visible size: 8GiB, 256G (K/M/G/T are powers of 1024), or bytes",
    ),
    (
        "op",
        "main-array over-provisioning as physical/logical - 1, in percent: op=7%, op=25%",
    ),
    ("channels", "NAND channels"),
    ("dies", "dies per channel"),
    (
        "planes",
        "planes per die (a block spans all planes of a die)",
    ),
    ("pages_per_block", "pages per block (per plane)"),
    (
        "page_size",
        "NAND page size, a multiple of 4 KiB: 8KiB, 16KiB",
    ),
    (
        "cell",
        "slc, mlc or tlc (resets the NAND latencies to that cell's defaults)",
    ),
    ("t_read", "page read latency: 50us"),
    ("t_prog", "page program latency: 1300us, 1.3ms"),
    ("t_erase", "block erase latency: 3ms"),
    ("slc_t_read", "page read latency in pseudo-SLC mode"),
    ("slc_t_prog", "page program latency in pseudo-SLC mode"),
    (
        "channel_mbps",
        "NAND channel transfer rate in MB/s (10^6 bytes/s)",
    ),
    (
        "link",
        "host interface: sata or nvme (resets link_mbps and link_cmd)",
    ),
    ("link_mbps", "host link payload rate in MB/s"),
    ("link_cmd", "host link cost per command: 2.5us"),
    (
        "cmd_read",
        "controller time per read command (serial): 10us",
    ),
    (
        "cmd_write",
        "controller time per write command (serial): 12us",
    ),
    (
        "write_buffer",
        "DRAM write buffer: 32MiB (at least one page stripe per die is always there)",
    ),
    ("dram", "DRAM on the drive (informational)"),
    (
        "slc_cache",
        "pseudo-SLC cache size in user data, 0 for none: 12GiB",
    ),
    ("gc", "greedy, cost-benefit or fifo"),
    (
        "gc_threshold",
        "foreground GC keeps more than this many free blocks (at least the die count)",
    ),
    (
        "bg_gc_threshold",
        "background GC in idle time cleans up to this many free blocks",
    ),
    ("read_ahead", "on/off: sequential read-ahead of one IO"),
    (
        "trim",
        "on/off: off ignores TRIM (discards complete but unmap nothing)",
    ),
    (
        "data",
        "on/off: real buffers; reads return zeros (unmapped) or an LBA stamp (mapped)",
    ),
];

/// Capacity of a drive sold as `gb` GB, by the IDEMA LBA1-03 formula.
const fn idema(gb: u64) -> u64 {
    (97_696_368 + 1_953_504 * (gb - 50)) * 512
}

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

fn base(preset: &str, summary: &str) -> Config {
    let (link_mbps, link_cmd_ns) = LinkKind::Sata.defaults();
    Config {
        preset: preset.into(),
        model_of: None,
        summary: summary.into(),
        sources: String::new(),
        capacity_bytes: 8 * GIB,
        op_pct: 7.0,
        channels: 4,
        dies_per_channel: 1,
        planes: 2,
        pages_per_block: 128,
        page_bytes: 16 << 10,
        cell: CellType::Mlc,
        native: NandLatency::native(CellType::Mlc),
        pslc: NandLatency::pseudo_slc(CellType::Mlc),
        channel_mbps: 200.0,
        link: LinkKind::Sata,
        link_mbps,
        link_cmd_ns,
        cmd_read_ns: 10_000,
        cmd_write_ns: 12_000,
        write_buffer_bytes: 8 * MIB,
        dram_bytes: 64 * MIB,
        slc_cache_bytes: 0,
        gc: GcPolicy::Greedy,
        gc_threshold: None,
        bg_gc_threshold: None,
        read_ahead: true,
        trim: true,
        data: false,
    }
}

/// (name, one-line description) of every preset.
pub fn presets() -> Vec<(&'static str, &'static str)> {
    PRESETS.iter().map(|(n, d, _)| (*n, *d)).collect()
}

type Build = fn() -> Config;

const PRESETS: &[(&str, &str, Build)] = &[
    (
        "default",
        "small 8 GiB MLC SATA drive (8 dies, 7% spare): the whole review suite in seconds, with a clear consistency cliff",
        default_preset,
    ),
    (
        "extreme-ii-480",
        "model of SanDisk Extreme II 480GB: 8-channel Marvell, 19nm eX2 ABL MLC with nCache, ~14% spare, 512MB DRAM",
        extreme_ii_480,
    ),
    (
        "ultra-plus-256",
        "model of SanDisk Ultra Plus 256GB: 4-channel Marvell, 19nm MLC with a small nCache, ~7% spare, 128MB DRAM",
        ultra_plus_256,
    ),
    (
        "840-evo-1tb",
        "model of Samsung SSD 840 EVO 1TB: 8-channel MEX, 19nm TLC with 12GB TurboWrite, ~6% spare, 1GB DRAM",
        evo_840_1tb,
    ),
    (
        "840-pro-256",
        "model of Samsung SSD 840 Pro 256GB: 8-channel MDX, 21nm Toggle MLC, ~7% spare, 512MB DRAM",
        pro_840_256,
    ),
    (
        "dc-s3700-200",
        "model of Intel SSD DC S3700 200GB: 8-channel, 25nm HET MLC, ~42% spare, the consistency benchmark",
        dc_s3700_200,
    ),
];

fn default_preset() -> Config {
    let mut c = base("default", PRESETS[0].1);
    c.dies_per_channel = 2;
    c.sources =
        "not a real drive: sized so the suite runs in seconds; timings are the MLC defaults".into();
    c
}

fn extreme_ii_480() -> Config {
    let mut c = base("extreme-ii-480", PRESETS[1].1);
    c.model_of = Some("SanDisk Extreme II 480GB".into());
    c.sources =
        "spec 545 MB/s read, 500 MB/s write, 95K/75K IOPS 4K random read/write, 8 channels \
                 (88SS9187), 19nm eX2 ABL MLC, 512 GiB raw, ~1MB DRAM per GB (AnandTech review); \
                 nCache size not published: 1 GiB assumed"
            .into();
    c.capacity_bytes = idema(480);
    c.channels = 8;
    c.dies_per_channel = 8;
    c.pages_per_block = 256;
    c.slc_cache_bytes = GIB;
    // 512 GiB raw, less 2 GiB run as 1 GiB of pSLC: 510 GiB over 480 GB.
    c.op_pct = 14.0;
    c.channel_mbps = 400.0;
    c.cmd_read_ns = 10_000;
    c.cmd_write_ns = 13_000;
    c.write_buffer_bytes = 32 * MIB;
    c.dram_bytes = 512 * MIB;
    c
}

fn ultra_plus_256() -> Config {
    let mut c = base("ultra-plus-256", PRESETS[2].1);
    c.model_of = Some("SanDisk Ultra Plus 256GB".into());
    c.sources = "4 channels (88SS9175), 32 x 8GB dies of 19nm eX2 ABL MLC, 128MB DRAM, ~7% spare \
                 (AnandTech review); spec 530 MB/s read, 445 MB/s write, 80K/78K IOPS from SanDisk's \
                 spec sheet as recalled (not in the review); nCache size not published: 512 MiB assumed"
        .into();
    c.capacity_bytes = idema(256);
    c.channels = 4;
    c.dies_per_channel = 8;
    c.pages_per_block = 256;
    c.slc_cache_bytes = 512 * MIB;
    c.op_pct = 6.9;
    c.channel_mbps = 200.0;
    c.cmd_read_ns = 12_000;
    c.cmd_write_ns = 12_500;
    c.write_buffer_bytes = 16 * MIB;
    c.dram_bytes = 128 * MIB;
    c
}

fn evo_840_1tb() -> Config {
    let mut c = base("840-evo-1tb", PRESETS[3].1);
    c.model_of = Some("Samsung SSD 840 EVO 1TB".into());
    c.sources = "spec 540 MB/s read, 520 MB/s write, 98K/90K IOPS, 1GB DRAM, 19nm 128Gb TLC, \
                 64 dies on 8 channels (AnandTech EVO mSATA review); TurboWrite 12GB at 1TB \
                 (Samsung); 1 TiB raw"
        .into();
    c.capacity_bytes = idema(1000);
    c.channels = 8;
    c.dies_per_channel = 8;
    c.pages_per_block = 192;
    c.cell = CellType::Tlc;
    c.native = NandLatency::native(CellType::Tlc);
    c.pslc = NandLatency::pseudo_slc(CellType::Tlc);
    c.slc_cache_bytes = 12 * GIB;
    // 1024 GiB raw less 36 GiB run as 12 GiB of SLC: 988 GiB over 1000.2 GB.
    c.op_pct = 6.0;
    c.channel_mbps = 400.0;
    c.cmd_read_ns = 10_000;
    c.cmd_write_ns = 11_000;
    c.write_buffer_bytes = 64 * MIB;
    c.dram_bytes = GIB;
    c
}

fn pro_840_256() -> Config {
    let mut c = base("840-pro-256", PRESETS[4].1);
    c.model_of = Some("Samsung SSD 840 Pro 256GB".into());
    c.sources = "spec 540 MB/s read, 520 MB/s write, 100K/90K IOPS, 512MB DRAM, 8 channels, \
                 21nm 64Gb Toggle MLC (32 dies, 256 GiB raw), from Samsung's spec sheet as recalled"
        .into();
    c.capacity_bytes = idema(256);
    c.channels = 8;
    c.dies_per_channel = 4;
    c.pages_per_block = 256;
    c.op_pct = 7.3;
    c.channel_mbps = 400.0;
    c.cmd_read_ns = 9_500;
    c.cmd_write_ns = 11_000;
    c.write_buffer_bytes = 32 * MIB;
    c.dram_bytes = 512 * MIB;
    c
}

fn dc_s3700_200() -> Config {
    let mut c = base("dc-s3700-200", PRESETS[5].1);
    c.model_of = Some("Intel SSD DC S3700 200GB".into());
    c.sources = "spec 500 MB/s read, 365 MB/s write, 75K IOPS random read, 32K IOPS steady-state \
                 random write, 264 GiB raw for 200 GB, 8 channels, 25nm HET MLC, from Intel's spec \
                 sheet as recalled"
        .into();
    c.capacity_bytes = idema(200);
    c.channels = 8;
    c.dies_per_channel = 4;
    c.pages_per_block = 256;
    c.page_bytes = 8 << 10;
    c.op_pct = 41.7;
    c.channel_mbps = 200.0;
    c.native.program_ns = 1_400_000;
    c.cmd_read_ns = 13_000;
    c.cmd_write_ns = 13_000;
    c.write_buffer_bytes = 16 * MIB;
    c.dram_bytes = 256 * MIB;
    c
}

/// A preset by name.
pub fn preset(name: &str) -> Option<Config> {
    PRESETS
        .iter()
        .find(|(n, _, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, _, build)| build())
}

fn preset_names() -> String {
    PRESETS
        .iter()
        .map(|(n, _, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Resolve a spec (what follows `sim:`) into a configuration. It is validated too.
pub fn resolve(spec: &str) -> Result<Config, SimError> {
    let err = |msg: String| SimError::Spec {
        spec: spec.to_string(),
        msg,
    };
    let tokens: Vec<&str> = spec
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    let mut overrides: Vec<(String, String)> = Vec::new();
    let mut rest = &tokens[..];
    let mut cfg = match tokens.first() {
        None => preset("default").expect("the default preset exists"),
        Some(first) if first.to_ascii_lowercase().ends_with(".toml") => {
            rest = &tokens[1..];
            let (c, o) = load_toml(first).map_err(|e| match e {
                SimError::Spec { msg, .. } => err(msg),
                other => other,
            })?;
            overrides.extend(o);
            c
        }
        Some(first) if !first.contains('=') => {
            rest = &tokens[1..];
            preset(first).ok_or_else(|| {
                err(format!(
                    "unknown preset '{first}': use one of {} (see `ssdlab sim list`), or a .toml file",
                    preset_names()
                ))
            })?
        }
        Some(_) => preset("default").expect("the default preset exists"),
    };
    for t in rest {
        let Some((k, v)) = t.split_once('=') else {
            return Err(err(format!(
                "'{t}' is not key=value: overrides look like op=25% or gc=fifo (keys: {})",
                key_names()
            )));
        };
        overrides.push((k.trim().to_string(), v.trim().to_string()));
    }
    apply_all(&mut cfg, &overrides).map_err(err)?;
    cfg.layout()?;
    Ok(cfg)
}

fn key_names() -> String {
    KEYS.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
}

/// Apply overrides, `cell` and `link` first since they reset what they imply.
pub fn apply_all(cfg: &mut Config, overrides: &[(String, String)]) -> Result<(), String> {
    let first = |k: &str| matches!(k, "cell" | "link");
    for (k, v) in overrides.iter().filter(|(k, _)| first(k)) {
        apply(cfg, k, v)?;
    }
    for (k, v) in overrides.iter().filter(|(k, _)| !first(k)) {
        apply(cfg, k, v)?;
    }
    Ok(())
}

/// Set one key.
pub fn apply(cfg: &mut Config, key: &str, value: &str) -> Result<(), String> {
    let v = value.trim();
    match key {
        "capacity" => cfg.capacity_bytes = size(key, v)?,
        "op" => cfg.op_pct = percent(key, v)?,
        "channels" => cfg.channels = count(key, v)?,
        "dies" | "dies_per_channel" => cfg.dies_per_channel = count(key, v)?,
        "planes" => cfg.planes = count(key, v)?,
        "pages_per_block" => cfg.pages_per_block = count(key, v)?,
        "page_size" => {
            let b = size(key, v)?;
            cfg.page_bytes = u32::try_from(b).map_err(|_| format!("page_size={v} is too large"))?;
        }
        "cell" => {
            let cell = CellType::parse(v)
                .ok_or_else(|| format!("cell={v}: use cell=slc, cell=mlc or cell=tlc"))?;
            cfg.cell = cell;
            cfg.native = NandLatency::native(cell);
            cfg.pslc = NandLatency::pseudo_slc(cell);
        }
        "t_read" => cfg.native.read_ns = duration(key, v)?,
        "t_prog" => cfg.native.program_ns = duration(key, v)?,
        "t_erase" => cfg.native.erase_ns = duration(key, v)?,
        "slc_t_read" => cfg.pslc.read_ns = duration(key, v)?,
        "slc_t_prog" => cfg.pslc.program_ns = duration(key, v)?,
        "channel_mbps" => cfg.channel_mbps = rate(key, v)?,
        "link" => {
            cfg.link = match v.to_ascii_lowercase().as_str() {
                "sata" => LinkKind::Sata,
                "nvme" | "pcie" => LinkKind::Nvme,
                _ => return Err(format!("link={v}: use link=sata or link=nvme")),
            };
            (cfg.link_mbps, cfg.link_cmd_ns) = cfg.link.defaults();
        }
        "link_mbps" => cfg.link_mbps = rate(key, v)?,
        "link_cmd" => cfg.link_cmd_ns = duration(key, v)?,
        "cmd_read" => cfg.cmd_read_ns = duration(key, v)?,
        "cmd_write" => cfg.cmd_write_ns = duration(key, v)?,
        "write_buffer" => cfg.write_buffer_bytes = size(key, v)?,
        "dram" => cfg.dram_bytes = size(key, v)?,
        "slc_cache" => cfg.slc_cache_bytes = size(key, v)?,
        "gc" => {
            cfg.gc = GcPolicy::parse(v)
                .ok_or_else(|| format!("gc={v}: use gc=greedy, gc=cost-benefit or gc=fifo"))?
        }
        "gc_threshold" => cfg.gc_threshold = Some(number(key, v)?),
        "bg_gc_threshold" => cfg.bg_gc_threshold = Some(number(key, v)?),
        "read_ahead" => cfg.read_ahead = boolean(key, v)?,
        "trim" => cfg.trim = boolean(key, v)?,
        "data" => cfg.data = boolean(key, v)?,
        _ => {
            return Err(format!(
                "unknown key '{key}': the keys are {} (see `ssdlab sim show default`)",
                key_names()
            ))
        }
    }
    Ok(())
}

fn size(key: &str, v: &str) -> Result<u64, String> {
    engine::size::parse_size(v).map_err(|e| format!("{key}: {e}"))
}

fn number(key: &str, v: &str) -> Result<u32, String> {
    v.parse::<u32>()
        .map_err(|_| format!("{key}={v}: expected a whole number"))
}

fn count(key: &str, v: &str) -> Result<u32, String> {
    number(key, v)
}

fn percent(key: &str, v: &str) -> Result<f64, String> {
    let t = v.strip_suffix('%').unwrap_or(v).trim();
    let p: f64 = t
        .parse()
        .map_err(|_| format!("{key}={v}: expected a percentage like {key}=7% or {key}=25%"))?;
    if !p.is_finite() {
        return Err(format!("{key}={v}: expected a finite percentage"));
    }
    Ok(p)
}

fn rate(key: &str, v: &str) -> Result<f64, String> {
    let lower = v.to_ascii_lowercase();
    let t = lower
        .strip_suffix("mb/s")
        .or_else(|| lower.strip_suffix("mbps"))
        .unwrap_or(&lower)
        .trim();
    let r: f64 = t
        .parse()
        .map_err(|_| format!("{key}={v}: expected a rate in MB/s like {key}=400"))?;
    if !(r.is_finite() && r > 0.0) {
        return Err(format!("{key}={v}: the rate must be positive"));
    }
    Ok(r)
}

fn boolean(key: &str, v: &str) -> Result<bool, String> {
    match v.to_ascii_lowercase().as_str() {
        "on" | "true" | "yes" | "1" => Ok(true),
        "off" | "false" | "no" | "0" => Ok(false),
        _ => Err(format!("{key}={v}: use {key}=on or {key}=off")),
    }
}

/// `50us`, `1.3ms`, `3ms`, `500ns`, `0.002s`; a bare number is nanoseconds.
fn duration(key: &str, v: &str) -> Result<u64, String> {
    let lower = v.to_ascii_lowercase();
    let split = lower
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(lower.len());
    let (num, unit) = lower.split_at(split);
    let x: f64 = num
        .parse()
        .map_err(|_| format!("{key}={v}: expected a time like 50us, 1.3ms or 3ms"))?;
    let mult = match unit.trim() {
        "" | "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        other => {
            return Err(format!(
                "{key}={v}: unknown time unit '{other}'; use ns, us, ms or s"
            ))
        }
    };
    let ns = x * mult;
    if !(ns.is_finite() && (0.0..1e15).contains(&ns)) {
        return Err(format!("{key}={v} is out of range"));
    }
    Ok(ns.round() as u64)
}

/// Load a TOML file: a table of the override keys, plus `preset = "name"` to start from.
pub fn load_toml(path: &str) -> Result<(Config, Vec<(String, String)>), SimError> {
    let text = std::fs::read_to_string(path).map_err(|source| SimError::Io {
        path: path.to_string(),
        source,
    })?;
    let spec_err = |msg: String| SimError::Spec {
        spec: path.to_string(),
        msg,
    };
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| spec_err(format!("{path} is not valid TOML: {e}")))?;
    let base_name = match table.get("preset") {
        None => "default".to_string(),
        Some(toml::Value::String(s)) => s.clone(),
        Some(_) => {
            return Err(spec_err(
                "preset must be a string, e.g. preset = \"default\"".into(),
            ))
        }
    };
    let cfg = preset(&base_name).ok_or_else(|| {
        spec_err(format!(
            "unknown preset '{base_name}': use one of {}",
            preset_names()
        ))
    })?;
    let mut overrides = Vec::new();
    for (k, v) in &table {
        if k == "preset" {
            continue;
        }
        let s = match v {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => f.to_string(),
            toml::Value::Boolean(b) => (if *b { "on" } else { "off" }).to_string(),
            _ => {
                return Err(spec_err(format!(
                    "{k}: expected a string, number or boolean"
                )))
            }
        };
        overrides.push((k.clone(), s));
    }
    Ok((cfg, overrides))
}
