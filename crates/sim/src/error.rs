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
