//! What can go wrong before the simulated drive exists: a spec that names nothing, or a
//! configuration that no SSD could have. Every message says what was wrong and what to do.

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The spec or TOML file names an unknown preset or key, or a value does not parse.
    #[error("sim:{spec}: {msg}")]
    Spec { spec: String, msg: String },
    /// The configuration parses but describes an impossible drive.
    #[error("impossible simulated SSD: {0}")]
    Config(String),
    #[error("reading {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// Why one `key=value` override was refused. Each message names the key and the value as
/// written, and what the key takes instead.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KeyError {
    #[error(
        "unknown key {}: the keys are {} (see `ssdlab sim show default`)",
        crate::preset::excerpt(.0),
        crate::preset::key_names()
    )]
    Unknown(String),
    #[error(
        "{}: the value {} is longer than any key takes ({max} bytes at most)",
        crate::preset::excerpt(.key),
        crate::preset::excerpt(.value)
    )]
    TooLong {
        key: String,
        value: String,
        max: usize,
    },
    /// The value does not read as the key takes it; `takes` says how it does.
    #[error("{key}={value}: {takes}")]
    Malformed {
        key: String,
        value: String,
        takes: String,
    },
    #[error("{key}={value}: {source}")]
    Faults {
        key: String,
        value: String,
        #[source]
        source: crate::faults::FaultError,
    },
    /// A size that does not read as one, and why.
    #[error("{key}: {why}")]
    Size {
        key: String,
        why: engine::size::SizeError,
    },
    #[error("{key}={value} is too large")]
    TooLarge { key: String, value: String },
    /// A value outside its key's physical range (`Range::check`).
    #[error("{key}={text} is outside {min}..{max}: {why}{}", zero_note(.zero))]
    Outside {
        key: &'static str,
        text: String,
        min: String,
        max: String,
        why: &'static str,
        /// What a value of 0 does, when 0 was the value.
        zero: Option<&'static str>,
    },
    /// A value parsed as a quantity its key has no range for: a bug in ssdlab.
    #[error("{key}={value}: ssdlab has no range for {key} (a bug in ssdlab: please report it)")]
    NoRange { key: String, value: String },
    #[error("{0} is not a numeric key")]
    NotNumeric(String),
}

fn zero_note(zero: &Option<&'static str>) -> String {
    zero.map(|what| format!("; 0 {what}")).unwrap_or_default()
}

impl KeyError {
    /// `key=value` does not read as the key takes it, which `takes` says.
    pub(crate) fn malformed(key: &str, value: &str, takes: impl Into<String>) -> KeyError {
        KeyError::Malformed {
            key: key.to_string(),
            value: value.to_string(),
            takes: takes.into(),
        }
    }
}
