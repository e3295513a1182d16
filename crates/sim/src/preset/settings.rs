//! Setting a key: one `key=value` on a [`Config`], and where each value came from.

use super::key::key;
use crate::config::Config;
use crate::error::KeyError;

/// Where a value came from, as `ssdlab sim show` prints it.
pub const FROM_DEFAULT: &str = "ssdlab's default (assumed)";
pub const FROM_USER: &str = "your override";

/// Apply `key=value` pairs, `cell` and `link` first since they reset what they imply,
/// recording each with `source`.
pub fn apply_all(
    cfg: &mut Config,
    overrides: &[(String, String)],
    source: &str,
) -> Result<(), KeyError> {
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
pub fn apply(cfg: &mut Config, name: &str, value: &str) -> Result<(), KeyError> {
    let v = value.trim();
    if v.len() > MAX_VALUE_BYTES {
        return Err(KeyError::TooLong {
            key: name.to_string(),
            value: v.to_string(),
            max: MAX_VALUE_BYTES,
        });
    }
    key(name)
        .ok_or_else(|| KeyError::Unknown(name.to_string()))?
        .set(cfg, v)
}
