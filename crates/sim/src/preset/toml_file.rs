//! A drive's TOML file: a table of the override keys, plus the preset to start from.

use super::{excerpt, preset, unknown_preset};
use crate::config::Config;
use crate::error::SimError;

/// A drive's TOML file: a few dozen keys, so a mebibyte is far more than one ever needs.
const DRIVE_TOML: engine::regular_file::RegularFile =
    engine::regular_file::RegularFile::new("a simulated drive's TOML file", 1 << 20);

/// Why `text` (the file `path`) is not valid TOML: where, what, and a short excerpt of the
/// line (the parser's own message quotes the whole line, however long).
fn toml_error(path: &str, text: &str, e: &toml::de::Error) -> String {
    let Some(mut at) = e.span().map(|s| s.start.min(text.len())) else {
        return format!("{path} is not valid TOML: {}", e.message().trim());
    };
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("");
    let line_number = text[..at].matches('\n').count() + 1;
    let column = text[line_start..at].chars().count() + 1;
    let message = e.message().trim().replace('\n', ": ");
    let shown = match line.trim() {
        "" => String::new(),
        _ => format!(" (the line: {})", excerpt(line)),
    };
    format!("{path} is not valid TOML: line {line_number}, column {column}: {message}{shown}")
}

/// A drive's TOML file, read: the preset it starts from, its keys in order, and where each
/// value came from (its `[sources]` table, key = "text"), as a twin of `ssdlab sim fit`
/// records its fit.
pub struct DriveFile {
    pub config: Config,
    pub overrides: Vec<(String, String)>,
    pub provenance: Vec<(String, String)>,
}

/// Load a TOML file: a table of the override keys, plus `preset = "name"` to start from,
/// an optional `fit_report = "path"` and an optional `[sources]` table.
pub fn load_toml(path: &str) -> Result<DriveFile, SimError> {
    let text = DRIVE_TOML
        .read_to_string(path.as_ref())
        .map_err(|source| SimError::Io {
            path: path.to_string(),
            source,
        })?;
    let spec_err = |msg: String| SimError::Spec {
        spec: path.to_string(),
        msg,
    };
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| spec_err(toml_error(path, &text, &e)))?;
    let base_name = match table.get("preset") {
        None => "default".to_string(),
        Some(toml::Value::String(s)) => s.clone(),
        Some(_) => {
            return Err(spec_err(
                "preset must be a string, e.g. preset = \"default\"".into(),
            ))
        }
    };
    let mut cfg = preset(&base_name).ok_or_else(|| spec_err(unknown_preset(&base_name)))?;
    let mut overrides = Vec::new();
    let mut provenance = Vec::new();
    for (k, v) in &table {
        match (k.as_str(), v) {
            ("preset", _) => continue,
            ("fit_report", toml::Value::String(report)) => {
                cfg.fit_report = Some(report.clone());
                continue;
            }
            ("sources", toml::Value::Table(sources)) => {
                for (key, text) in sources {
                    let toml::Value::String(text) = text else {
                        return Err(spec_err(format!(
                            "sources.{key}: expected a string saying where the value came from"
                        )));
                    };
                    provenance.push((key.clone(), text.clone()));
                }
                continue;
            }
            _ => {}
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
    Ok(DriveFile {
        config: cfg,
        overrides,
        provenance,
    })
}
