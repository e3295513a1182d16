//! Presets (models of real drives, built from their spec sheets), `key=value` overrides and
//! TOML files. A spec is what follows `sim:`:
//!
//! - `default`, `ultra-plus-256`, ... a preset by name;
//! - `ultra-plus-256,op=25%,gc=fifo,capacity=8GiB`: a preset with overrides, applied in order
//!   except that `cell` and `link` go first (they reset the timings they imply);
//! - `op=25%,gc=fifo`: overrides on `default`;
//! - `path/to/drive.toml[,key=value...]`: a TOML table of the same keys, with an optional
//!   `preset = "name"` to start from (default `default`).
//!
//! The spec language, a file per concept: `key` is what a key's record holds (what it means,
//! its range, its default, what it sets) and `keys` the records; `settings` sets one key on a [`Config`] and records where each
//! value came from; `values` parses a value (a size, a time, a percentage...) and checks it
//! against its range; `lookup` finds and builds a preset by name; `toml_file` reads a drive's
//! TOML file. [`resolve`] puts them together.

mod key;
mod keys;
mod lookup;
mod settings;
mod toml_file;
mod values;

pub use crate::error::KeyError;
pub use key::{key, ranges, Key};
pub use keys::KEYS;
pub use lookup::{find, preset, presets, unknown_preset};
pub use settings::{apply, apply_all, FROM_DEFAULT, FROM_USER};
pub use toml_file::{load_toml, DriveFile};
pub use values::{quantities, spec_text};

use crate::config::Config;
use crate::error::SimError;
pub(crate) use key::key_names;

/// What starts a target naming a simulated drive: `sim:SPEC`.
pub const TARGET_PREFIX: &str = "sim:";

/// The spec a `sim:` target names (`default,op=25%` of `sim:default,op=25%`); None for a
/// target that is no simulated drive.
pub fn target_spec(target: &str) -> Option<&str> {
    target.strip_prefix(TARGET_PREFIX)
}

/// The spec `text` gives, as a `sim:` target or as the spec alone: where only a simulated
/// drive can be meant (`ssdlab sim show`, `sim fit --from`).
pub fn spec_of(text: &str) -> &str {
    target_spec(text).unwrap_or(text)
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
    let mut file_overrides: Vec<(String, String)> = Vec::new();
    let mut provenance = Vec::new();
    let mut rest = &tokens[..];
    let mut cfg = match tokens.first() {
        None => preset("default").expect("the default preset exists"),
        Some(first) if first.to_ascii_lowercase().ends_with(".toml") => {
            rest = &tokens[1..];
            let file = load_toml(first).map_err(|e| match e {
                SimError::Spec { msg, .. } => err(msg),
                other => other,
            })?;
            file_overrides = file.overrides;
            provenance = file.provenance;
            file.config
        }
        Some(first) if !first.contains('=') => {
            rest = &tokens[1..];
            preset(first)
                .ok_or_else(|| err(format!("{}, or a .toml file", unknown_preset(first))))?
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
    // A file's keys, then the spec's after it; a file's own account of where a value came
    // from (a twin's "fitted to ...") replaces "your override".
    let key_err = |e: KeyError| err(e.to_string());
    apply_all(&mut cfg, &file_overrides, FROM_USER).map_err(key_err)?;
    for (key, text) in provenance {
        if let Some(s) = cfg
            .sources
            .iter_mut()
            .rev()
            .find(|(k, _, source)| *k == key && source == FROM_USER)
        {
            s.2 = text;
        }
    }
    apply_all(&mut cfg, &overrides, FROM_USER).map_err(key_err)?;
    cfg.layout()?;
    Ok(cfg)
}

/// The longest excerpt of a value or line a message quotes.
const EXCERPT_CHARS: usize = 60;

/// `text` quoted, cut to [`EXCERPT_CHARS`] with its length when longer.
pub(crate) fn excerpt(text: &str) -> String {
    match text.char_indices().nth(EXCERPT_CHARS) {
        None => format!("'{text}'"),
        Some((cut, _)) => format!("'{}...', {} bytes", &text[..cut], text.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_is_what_follows_sim() {
        assert_eq!(target_spec("sim:default,op=25%"), Some("default,op=25%"));
        assert_eq!(target_spec("default,op=25%"), None);
        assert_eq!(target_spec("file:/tmp/sim:x"), None);
        assert_eq!(spec_of("sim:drive.toml"), "drive.toml");
        assert_eq!(spec_of("840-evo-250"), "840-evo-250");
        let spec = target_spec(crate::preset::TARGET_PREFIX).unwrap();
        assert!(resolve(spec).is_ok(), "an empty spec is the default drive");
    }
}
