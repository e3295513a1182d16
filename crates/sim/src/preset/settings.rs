//! Setting a key: one `key=value` on a [`Config`], and where each value came from.

use super::excerpt;
use super::keys::key_names;
use super::values::{
    boolean, choice, count, duration, energy, number, percent, power, program_times, rate,
    rate_or_zero, size, within,
};
use crate::config::{
    BurstSize, Config, DataMode, GcStyle, LinkKind, SlcDrain, SlcRegion, SlcWhenFull, TrimClaim,
    TrimStyle,
};
use crate::energy::NandEnergy;
use crate::faults::FaultSpec;
use crate::geometry::CellType;
use crate::range::Quantity;
use crate::timing::{NandLatency, ProgramTimes};
use crate::victim::GcPolicy;

/// Where a value came from, as `ssdlab sim show` prints it.
pub const FROM_DEFAULT: &str = "ssdlab's default (assumed)";
pub const FROM_USER: &str = "your override";

/// Apply `key=value` pairs, `cell` and `link` first since they reset what they imply,
/// recording each with `source`.
pub fn apply_all(
    cfg: &mut Config,
    overrides: &[(String, String)],
    source: &str,
) -> Result<(), String> {
    let first = |k: &str| matches!(k, "cell" | "link");
    let ordered = overrides
        .iter()
        .filter(|(k, _)| first(k))
        .chain(overrides.iter().filter(|(k, _)| !first(k)));
    for (k, v) in ordered {
        apply(cfg, k, v)?;
        record(cfg, k, v, source);
        if source == FROM_USER {
            cfg.facts.retain(|(fact, _, _)| !overridden_by(fact, k));
        }
    }
    Ok(())
}

/// Whether overriding `key` makes a drive fact untrue of the simulated drive.
fn overridden_by(fact: &str, key: &str) -> bool {
    matches!((fact, key), ("nand", "cell") | ("dram", "dram"))
}

/// Record where a value came from, and the values `cell` and `link` reset with it.
pub(super) fn record(cfg: &mut Config, key: &str, value: &str, source: &str) {
    cfg.sources
        .push((key.to_string(), value.to_string(), source.to_string()));
    let implied = format!("ssdlab's default for {key}={value} (assumed)");
    let ns = |t: u64| format!("{}ns", t);
    let uj = |j: f64| format!("{}uJ", (j * 1e9).round() / 1e3);
    let e = &cfg.energy;
    let reset: Vec<(&str, String)> = match key {
        "cell" => vec![
            ("t_read", ns(cfg.native.read_ns)),
            ("t_prog", ns(cfg.native.program.mean())),
            ("t_erase", ns(cfg.native.erase_ns)),
            ("slc_t_read", ns(cfg.pslc.read_ns)),
            ("slc_t_prog", ns(cfg.pslc.program.mean())),
            ("e_read", uj(e.native.read_j)),
            ("e_prog", uj(e.native.prog_j)),
            ("e_erase", uj(e.native.erase_j)),
            ("slc_e_read", uj(e.pslc.read_j)),
            ("slc_e_prog", uj(e.pslc.prog_j)),
            ("slc_e_erase", uj(e.pslc.erase_j)),
        ],
        "link" => vec![
            ("link_mbps", cfg.link_mbps.to_string()),
            ("link_cmd", ns(cfg.link_cmd_ns)),
        ],
        _ => return,
    };
    for (k, v) in reset {
        cfg.sources.push((k.to_string(), v, implied.clone()));
    }
}

/// The longest value a key takes (a fault list is the longest, a few dozen bytes).
const MAX_VALUE_BYTES: usize = 256;

/// Set one key.
pub fn apply(cfg: &mut Config, key: &str, value: &str) -> Result<(), String> {
    let v = value.trim();
    if v.len() > MAX_VALUE_BYTES {
        return Err(format!(
            "{}: the value {} is longer than any key takes ({MAX_VALUE_BYTES} bytes at most)",
            excerpt(key),
            excerpt(v)
        ));
    }
    match key {
        "capacity" => cfg.capacity_bytes = size(key, v)?,
        "op" => cfg.op_pct = percent(key, v)?,
        "channels" => cfg.channels = count(key, v)?,
        "dies" | "dies_per_channel" => cfg.dies_per_channel = count("dies", v)?,
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
            cfg.energy.native = NandEnergy::native(cell);
            cfg.energy.pslc = NandEnergy::pseudo_slc(cell);
        }
        "map_unit" => cfg.map_unit_bytes = size(key, v)?,
        "t_read" => cfg.native.read_ns = duration(key, v)?,
        "t_prog" => cfg.native.program = program_times(key, v)?,
        "t_erase" => cfg.native.erase_ns = duration(key, v)?,
        "slc_t_read" => cfg.pslc.read_ns = duration(key, v)?,
        "slc_t_prog" => cfg.pslc.program = ProgramTimes::uniform(duration(key, v)?),
        "channel_mbps" => cfg.channel_mbps = rate(key, v)?,
        "link" => {
            cfg.link = choice(key, v, LinkKind::parse, LinkKind::NAMES)?;
            (cfg.link_mbps, cfg.link_cmd_ns) = cfg.link.defaults();
        }
        "link_mbps" => cfg.link_mbps = rate(key, v)?,
        "link_cmd" => cfg.link_cmd_ns = duration(key, v)?,
        "cmd_read" => cfg.cmd_read_ns = duration(key, v)?,
        "cmd_write" => cfg.cmd_write_ns = duration(key, v)?,
        "max_programs" => cfg.max_programs = number(key, v)?,
        "write_buffer" => cfg.write_buffer_bytes = size(key, v)?,
        "dram" => cfg.dram_bytes = size(key, v)?,
        "meta" => cfg.meta_pct = percent(key, v)?,
        "gc" => {
            cfg.gc.policy = choice(key, v, GcPolicy::parse, &["greedy", "cost-benefit", "fifo"])?
        }
        "gc_style" => cfg.gc.style = choice(key, v, GcStyle::parse, GcStyle::NAMES)?,
        "gc_threshold" => cfg.gc.threshold = Some(number(key, v)?),
        "bg_gc_threshold" => cfg.gc.bg_threshold = Some(number(key, v)?),
        "gc_burst" => {
            cfg.gc.burst = Some(if v.ends_with('%') {
                BurstSize::ReclaimablePct(percent(key, v)?)
            } else {
                BurstSize::Blocks(number(key, v)?)
            })
        }
        "gc_jitter" => cfg.gc.jitter_pct = percent(key, v)?,
        "gc_burst_above" => cfg.gc.burst_above_pct = percent(key, v)?,
        "gc_burst_rate" => {
            let factor: f64 = v
                .parse()
                .map_err(|_| format!("{key}={v}: expected a number above 1, e.g. {key}=2"))?;
            within(key, Quantity::Factor, v, factor)?;
            cfg.gc.burst_rate = factor
        }
        "copyback" => cfg.gc.copyback = boolean(key, v)?,
        "gc_dest" => {
            cfg.gc.same_die = match v {
                "stripe" => false,
                "die" => true,
                _ => return Err(format!("{key}={v}: use {key}=stripe or {key}=die")),
            }
        }
        "gc_unit" => cfg.gc.unit_ns = duration(key, v)?,
        "slc_cache" => cfg.slc.bytes = size(key, v)?,
        "slc_region" => cfg.slc.region = choice(key, v, SlcRegion::parse, SlcRegion::NAMES)?,
        "slc_full" => cfg.slc.when_full = choice(key, v, SlcWhenFull::parse, SlcWhenFull::NAMES)?,
        "slc_drain" => cfg.slc.drain = choice(key, v, SlcDrain::parse, SlcDrain::NAMES)?,
        "slc_drain_rate" => cfg.slc.drain_mbps = rate_or_zero(key, v)?,
        "slc_max_write" => cfg.slc.max_write_bytes = size(key, v)?,
        "trim" => cfg.trim.style = choice(key, v, TrimStyle::parse, TrimStyle::NAMES)?,
        "trim_keep" => cfg.trim.keep_pct = percent(key, v)?,
        "trim_rate" => cfg.trim.rate_mbps = rate_or_zero(key, v)?,
        "read_ahead" => cfg.read_ahead = boolean(key, v)?,
        "read_priority" => cfg.read_priority = boolean(key, v)?,
        "data" => cfg.data = choice(key, v, DataMode::parse, DataMode::NAMES)?,
        "faults" => cfg.faults = FaultSpec::parse(v).map_err(|e| format!("faults={v}: {e}"))?,
        "trim_reads" => cfg.trim_reads = choice(key, v, TrimClaim::parse, TrimClaim::NAMES)?,
        "e_read" => cfg.energy.native.read_j = energy(key, v, 1e-6)?,
        "e_prog" => cfg.energy.native.prog_j = energy(key, v, 1e-6)?,
        "e_erase" => cfg.energy.native.erase_j = energy(key, v, 1e-6)?,
        "slc_e_read" => cfg.energy.pslc.read_j = energy(key, v, 1e-6)?,
        "slc_e_prog" => cfg.energy.pslc.prog_j = energy(key, v, 1e-6)?,
        "slc_e_erase" => cfg.energy.pslc.erase_j = energy(key, v, 1e-6)?,
        "e_channel" => cfg.energy.channel_j_per_byte = energy(key, v, 1e-12)?,
        "e_link" => cfg.energy.link_j_per_byte = energy(key, v, 1e-12)?,
        "p_ctrl" => cfg.energy.ctrl_w = power(key, v)?,
        "p_active" => cfg.energy.active_w = power(key, v)?,
        "p_idle" => cfg.energy.idle_w = power(key, v)?,
        "p_dram" => cfg.energy.dram_w = power(key, v)?,
        "p_slumber" => cfg.energy.slumber_w = power(key, v)?,
        "slumber_after" => cfg.energy.slumber_after_ns = duration(key, v)?,
        "slumber_exit" => cfg.energy.slumber_exit_ns = duration(key, v)?,
        "link_pm" => cfg.energy.link_pm = boolean(key, v)?,
        "seed" => {
            cfg.seed = v
                .parse()
                .map_err(|_| format!("seed={v}: expected a whole number"))?
        }
        _ => {
            return Err(format!(
                "unknown key {}: the keys are {} (see `ssdlab sim show default`)",
                excerpt(key),
                key_names()
            ))
        }
    }
    Ok(())
}
