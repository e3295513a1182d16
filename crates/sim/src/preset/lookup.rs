//! Presets by name: each built on the base configuration, and the presets a mistyped name
//! probably meant.

use super::keys::KEYS;
use super::settings::{apply, apply_all, record, FROM_DEFAULT};
use crate::config::{
    Config, DataMode, GcConfig, GcStyle, LinkKind, SlcConfig, SlcDrain, SlcRegion, SlcWhenFull,
    TrimClaim, TrimConfig, TrimStyle,
};
use crate::drives;
use crate::energy::{EnergyConfig, NandEnergy};
use crate::faults::FaultSpec;
use crate::geometry::{CellType, UNIT_BYTES};
use crate::timing::NandLatency;
use crate::victim::GcPolicy;

/// The fidelity scorecard fingerprints a drive by its serialized configuration, `sources` in
/// order, and the base values were first recorded with `gc_burst_above` ahead of
/// `gc_burst_rate` (against the keys' order): kept, so that recorded outcomes stay current.
/// The order has no other effect.
const RECORDED_FIRST: (&str, &str) = ("gc_burst_above", "gc_burst_rate");

fn base() -> Config {
    let (link_mbps, link_cmd_ns) = LinkKind::Sata.defaults();
    let mut c = Config {
        preset: "default".into(),
        model_of: None,
        summary: String::new(),
        sources: Vec::new(),
        facts: Vec::new(),
        fit_report: None,
        capacity_bytes: 0,
        op_pct: 0.0,
        channels: 0,
        dies_per_channel: 0,
        planes: 0,
        pages_per_block: 0,
        page_bytes: 0,
        cell: CellType::Mlc,
        map_unit_bytes: UNIT_BYTES,
        native: NandLatency::native(CellType::Mlc),
        pslc: NandLatency::pseudo_slc(CellType::Mlc),
        channel_mbps: 0.0,
        link: LinkKind::Sata,
        link_mbps,
        link_cmd_ns,
        cmd_read_ns: 0,
        cmd_write_ns: 0,
        max_programs: 0,
        write_buffer_bytes: 0,
        dram_bytes: 0,
        meta_pct: 0.0,
        gc: GcConfig {
            policy: GcPolicy::Greedy,
            style: GcStyle::Paced,
            threshold: None,
            bg_threshold: None,
            burst: None,
            jitter_pct: 0.0,
            burst_above_pct: 0.0,
            burst_rate: 2.0,
            copyback: false,
            same_die: false,
            unit_ns: 0,
        },
        slc: SlcConfig {
            bytes: 0,
            region: SlcRegion::Static,
            when_full: SlcWhenFull::Bypass,
            drain: SlcDrain::Idle,
            drain_mbps: 0.0,
            max_write_bytes: 0,
        },
        trim: TrimConfig {
            style: TrimStyle::Immediate,
            keep_pct: 0.0,
            rate_mbps: 0.0,
        },
        read_ahead: true,
        read_priority: true,
        data: DataMode::Off,
        faults: FaultSpec::default(),
        trim_reads: TrimClaim::Auto,
        seed: 1,
        energy: EnergyConfig {
            native: NandEnergy::native(CellType::Mlc),
            pslc: NandEnergy::pseudo_slc(CellType::Mlc),
            channel_j_per_byte: 0.0,
            link_j_per_byte: 0.0,
            ctrl_w: 0.0,
            active_w: 0.0,
            idle_w: 0.0,
            dram_w: 0.0,
            slumber_w: 0.0,
            slumber_after_ns: 0,
            slumber_exit_ns: 0,
            link_pm: false,
        },
    };
    let mut all: Vec<(String, String)> = KEYS
        .iter()
        .filter_map(|k| Some((k.name.to_string(), k.base?.to_string())))
        .collect();
    let (first, then) = RECORDED_FIRST;
    let at = |key: &str| all.iter().position(|(k, _)| k == key);
    if let (Some(i), Some(j)) = (at(first), at(then)) {
        let moved = all.remove(i);
        all.insert(j.min(i), moved);
    }
    apply_all(&mut c, &all, FROM_DEFAULT).expect("the base configuration parses");
    c
}

/// (name, one-line description) of every preset.
pub fn presets() -> Vec<(&'static str, &'static str)> {
    drives::PRESETS
        .iter()
        .map(|p| (p.name, p.summary))
        .collect()
}

/// A preset by name: the base configuration with the preset's parameters applied, each
/// recorded with its source.
pub fn preset(name: &str) -> Option<Config> {
    let p = find(name)?;
    let mut c = base();
    c.preset = p.name.into();
    c.model_of = p.model_of.map(str::to_string);
    c.summary = p.summary.into();
    for group in p.params {
        for param in *group {
            let source = param.source.describe();
            apply(&mut c, param.key, param.value)
                .unwrap_or_else(|e| panic!("preset {}: {}: {e}", p.name, param.key));
            record(&mut c, param.key, param.value, &source);
        }
    }
    c.facts = p
        .facts
        .iter()
        .flat_map(|group| group.iter())
        .map(|f| (f.key.into(), f.value.into(), f.seed.into()))
        .collect();
    Some(c)
}

/// The preset named `name` (any case), as the drives module defines it.
pub fn find(name: &str) -> Option<&'static drives::Preset> {
    drives::PRESETS
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case(name))
}

fn preset_names() -> String {
    drives::PRESETS
        .iter()
        .map(|p| p.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why `name` is no preset, with the presets it was probably meant to be and the fix.
pub fn unknown_preset(name: &str) -> String {
    match near_presets(name).as_slice() {
        [] => format!(
            "unknown preset '{name}': use one of {} (`ssdlab sim list` describes them)",
            preset_names()
        ),
        [one] => format!(
            "unknown preset '{name}': did you mean {one}? (`ssdlab sim list` lists them all)"
        ),
        many => format!(
            "unknown preset '{name}': did you mean one of {}? (`ssdlab sim list` lists them all)",
            many.join(", ")
        ),
    }
}

/// The presets `name` is probably a typo or an abbreviation of: those containing it (if not
/// most of them), else those it (or their start) is a few edits from.
fn near_presets(name: &str) -> Vec<&'static str> {
    let name = name.to_ascii_lowercase();
    let names = drives::PRESETS.iter().map(|p| p.name);
    // "840evo" and "840_evo" are abbreviations of "840-evo-250" too.
    let bare = |s: &str| s.replace(['-', '_', ' '], "");
    let containing: Vec<&str> = names
        .clone()
        .filter(|n| bare(n).contains(&bare(&name)))
        .collect();
    // A fragment most presets contain ("0") suggests nothing.
    if !bare(&name).is_empty() && !containing.is_empty() && containing.len() * 2 <= names.len() {
        return containing;
    }
    let most = (name.len() / 3).max(1);
    // Against the whole name, or its start for a mistyped abbreviation ("840-prp").
    let distance = |n: &str| {
        let start: String = n.chars().take(name.chars().count()).collect();
        strsim::levenshtein(&name, n).min(strsim::levenshtein(&name, &start))
    };
    let scored: Vec<(usize, &str)> = names.map(|n| (distance(n), n)).collect();
    let best = scored.iter().map(|&(d, _)| d).min().unwrap_or(usize::MAX);
    if best > most {
        return Vec::new();
    }
    scored
        .into_iter()
        .filter(|&(d, _)| d == best)
        .map(|(_, n)| n)
        .collect()
}
