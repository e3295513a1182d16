//! What can go wrong reading or writing a trace.

use std::path::Path;

#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The OS error is in the message, not the source chain: `{:#}` would print it twice.
    #[error("{file}: {error}")]
    Io { file: String, error: std::io::Error },
    /// A line of a text trace that is not what its format says; `--skip-bad` skips such lines.
    #[error("{file}:{line}: {msg}")]
    Parse {
        file: String,
        line: u64,
        msg: String,
    },
    /// A binary trace that is not what its format says.
    #[error("{file}: at byte {offset}: {msg}")]
    Binary {
        file: String,
        offset: u64,
        msg: String,
    },
    /// The format could not be detected, or an option does not fit it.
    #[error("{0}")]
    Format(String),
}

impl TraceError {
    pub fn io(file: &Path, source: std::io::Error) -> Self {
        TraceError::Io {
            file: file.display().to_string(),
            error: source,
        }
    }

    /// True for errors about one line or record that `skip_bad` may skip.
    pub fn is_bad_input(&self) -> bool {
        matches!(self, TraceError::Parse { .. })
    }
}
