//! Setting a key: one `key=value` on a [`Config`], and where each value came from.

use super::key::{key, Key};
use crate::config::Config;
use crate::error::KeyError;

/// Where a value came from, as `ssdlab sim show` prints it.
pub const FROM_DEFAULT: &str = "ssdlab's default (assumed)";
pub const FROM_USER: &str = "your override";

/// Apply `key=value` pairs, those that reset others (`cell`, `link`) first, recording each
/// with `source`.
pub fn apply_all(
    cfg: &mut Config,
    overrides: &[(String, String)],
    source: &str,
) -> Result<(), KeyError> {
    let first = |k: &str| key(k).is_some_and(Key::resets_others);
    let ordered = overrides
        .iter()
        .filter(|(k, _)| first(k))
        .chain(overrides.iter().filter(|(k, _)| !first(k)));
    for (k, v) in ordered {
        apply(cfg, k, v)?;
        record(cfg, k, v, source);
        if let (FROM_USER, Some(fact)) = (source, key(k).and_then(|k| k.fact)) {
            cfg.facts.retain(|(f, _, _)| f != fact);
        }
    }
    Ok(())
}

/// Record where a value came from, and the values the key reset with it.
pub(super) fn record(cfg: &mut Config, name: &str, value: &str, source: &str) {
    cfg.sources
        .push((name.to_string(), value.to_string(), source.to_string()));
    let Some(reset) = key(name).and_then(|k| k.resets) else {
        return;
    };
    let implied = format!("ssdlab's default for {name}={value} (assumed)");
    for (k, v) in reset(cfg) {
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
