//! The presets: models of the drives the classic reviews tested (docs/methodology.md, "The
//! sources"), each parameter with where its value comes from. A preset is a list of
//! `key=value` settings in the spec language (`preset/`) applied in order to ssdlab's
//! defaults; families share groups of settings (one controller and firmware, one NAND) and
//! differ by capacity.
//!
//! Sources are honest about what the articles say: **published** (an article states it),
//! **derived** (arithmetic on published facts), **fitted** (chosen so the preset meets the
//! scorecard's claims, named by id, `twin/src/fidelity/claims.toml`) or **assumed** (nothing
//! published; a value typical of the drive's class).

mod intel;
mod samsung;
mod sandisk;

/// The review articles the sources cite, by number (docs/methodology.md, "The sources").
pub const SEEDS: &[(&str, &str)] = &[
    (
        "000",
        "AnandTech, SanDisk Extreme II review (480GB), June 2013",
    ),
    (
        "001",
        "AnandTech, SanDisk Extreme II review, performance consistency page and comments",
    ),
    (
        "002",
        "AnandTech, SanDisk Ultra Plus review (256GB), January 2013",
    ),
    (
        "003",
        "AnandTech, SanDisk X300s review (512GB), performance consistency page, August 2014",
    ),
    (
        "004",
        "AnandTech, Samsung SSD 840 EVO mSATA review (120GB-1TB), January 2014",
    ),
];

/// Where a parameter's value comes from.
#[derive(Clone, Copy, Debug)]
pub enum Source {
    /// A seed article states it: (seed, what it says).
    Published(&'static str, &'static str),
    /// Arithmetic on published facts: (seed, how).
    Derived(&'static str, &'static str),
    /// Chosen to meet the scorecard claims named (the value itself is not published).
    Fitted(&'static str),
    /// Not published: typical of the drive's class, and why.
    Assumed(&'static str),
    /// Chosen to meet a figure published outside the seeds (a maker's datasheet): (where,
    /// what). That figure is fitted from then on, no longer evidence that the preset predicts.
    FittedOutside(&'static str, &'static str),
}

impl Source {
    pub fn describe(&self) -> String {
        match self {
            Source::Published(seed, what) => format!("published [{seed}]: {what}"),
            Source::Derived(seed, how) => format!("derived [{seed}]: {how}"),
            Source::Fitted(claims) => format!("fitted to {claims}"),
            Source::Assumed(why) => format!("assumed: {why}"),
            Source::FittedOutside(source, what) => {
                format!("fitted outside the seeds to {source}: {what}")
            }
        }
    }
}

/// One setting of a preset.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    pub key: &'static str,
    pub value: &'static str,
    pub source: Source,
}

pub const fn published(
    key: &'static str,
    value: &'static str,
    seed: &'static str,
    what: &'static str,
) -> Param {
    Param {
        key,
        value,
        source: Source::Published(seed, what),
    }
}

pub const fn derived(
    key: &'static str,
    value: &'static str,
    seed: &'static str,
    how: &'static str,
) -> Param {
    Param {
        key,
        value,
        source: Source::Derived(seed, how),
    }
}

pub const fn fitted(key: &'static str, value: &'static str, claims: &'static str) -> Param {
    Param {
        key,
        value,
        source: Source::Fitted(claims),
    }
}

pub const fn fitted_outside(
    key: &'static str,
    value: &'static str,
    source: &'static str,
    what: &'static str,
) -> Param {
    Param {
        key,
        value,
        source: Source::FittedOutside(source, what),
    }
}

pub const fn assumed(key: &'static str, value: &'static str, why: &'static str) -> Param {
    Param {
        key,
        value,
        source: Source::Assumed(why),
    }
}

/// A fact about the real drive's hardware that a review states: its controller, NAND or
/// DRAM, in the review's words, for the drive tables. Facts describe the drive, not the model
/// (the model's own figures are parameters), and a preset states only what its seed does.
#[derive(Clone, Copy, Debug)]
pub struct Fact {
    /// One of [`FACT_KEYS`].
    pub key: &'static str,
    pub value: &'static str,
    /// The seed that states it.
    pub seed: &'static str,
}

/// The drive facts a preset may state.
pub const FACT_KEYS: &[&str] = &["controller", "nand", "dram"];

pub const fn fact(key: &'static str, value: &'static str, seed: &'static str) -> Fact {
    Fact { key, value, seed }
}

/// A figure the model is known to get wrong against published measurements of the drive it was
/// never fitted to (the figures stay withheld, so they remain a fair test), and why: what a
/// reader should not trust the preset for.
#[derive(Clone, Copy, Debug)]
pub struct Gap {
    /// The figure, and which way the model is off.
    pub figure: &'static str,
    /// The mechanism behind it, as measured, and what the model would need.
    pub why: &'static str,
}

pub const fn gap(figure: &'static str, why: &'static str) -> Gap {
    Gap { figure, why }
}

/// A preset: a name, the drive it models, its settings in groups applied in order, what its
/// review states about the drive's hardware, and where it is known to be off.
pub struct Preset {
    pub name: &'static str,
    pub model_of: Option<&'static str>,
    pub summary: &'static str,
    pub params: &'static [&'static [Param]],
    pub facts: &'static [&'static [Fact]],
    pub gaps: &'static [&'static [Gap]],
}

impl Preset {
    fn all_params(&self) -> impl Iterator<Item = &'static Param> {
        self.params.iter().flat_map(|group| group.iter())
    }

    /// The scorecard claims its parameters were chosen to meet (by id): meeting them says
    /// little about the model; the other claims about the drive are what it predicts.
    pub fn fitted_claims(&self) -> std::collections::BTreeSet<&'static str> {
        self.all_params()
            .filter_map(|p| match p.source {
                // "id, id (why)" or "id; why": the ids come first.
                Source::Fitted(text) => text.split([';', '(']).next(),
                _ => None,
            })
            .flat_map(|ids| ids.split(','))
            .map(str::trim)
            .filter(|id| !id.is_empty())
            .collect()
    }

    /// Where it is known to be off, family gaps first.
    pub fn gaps(&self) -> impl Iterator<Item = &'static Gap> {
        self.gaps.iter().flat_map(|group| group.iter())
    }

    /// Its parameters fitted to figures published outside the seeds: (key, where, what).
    pub fn fitted_outside(&self) -> Vec<(&'static str, &'static str, &'static str)> {
        self.all_params()
            .filter_map(|p| match p.source {
                Source::FittedOutside(source, what) => Some((p.key, source, what)),
                _ => None,
            })
            .collect()
    }
}

/// The small fast drive every command defaults to: not a real drive, but with the mechanisms
/// client drives have, so a newcomer's first suite shows what the reviews showed.
const DEFAULT: &[Param] = &[
    assumed("capacity", "8GiB", "small, so the whole suite runs in seconds"),
    assumed("dies", "2", "8 dies: enough parallelism to reach the SATA link"),
    assumed("t_prog", "650us/1950us", "MLC with LSB/MSB pages in a 1:3 ratio, 1.3 ms mean"),
    assumed("gc_style", "bursty", "client firmware cleans in bursts, which scatters the steady state as the reviews' charts show"),
    assumed("gc_burst", "16", "two blocks per die per burst"),
    assumed("gc_jitter", "60%", "bursts of varying length"),
    assumed("p_idle", "0.3W", "a client SATA controller in active idle"),
    assumed("p_slumber", "0.05W", "a client drive's SATA slumber"),
    assumed("p_active", "1W", "a client controller at work"),
];

/// Every preset, `default` first.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "default",
        model_of: None,
        summary: "small 8 GiB MLC SATA drive (8 dies, 7% spare, bursty GC): the whole review suite in seconds, with a clear consistency cliff",
        params: &[DEFAULT],
        facts: &[],
        gaps: &[],
    },
    sandisk::EXTREME_II_120,
    sandisk::EXTREME_II_240,
    sandisk::EXTREME_II_480,
    sandisk::ULTRA_PLUS_64,
    sandisk::ULTRA_PLUS_128,
    sandisk::ULTRA_PLUS_256,
    sandisk::X300S_512,
    samsung::EVO_120,
    samsung::EVO_250,
    samsung::EVO_500,
    samsung::EVO_1TB,
    samsung::EVO_MSATA_120,
    samsung::EVO_MSATA_250,
    samsung::EVO_MSATA_500,
    samsung::EVO_MSATA_1TB,
    samsung::PRO_256,
    intel::S3700_200,
];
