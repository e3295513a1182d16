//! One error type for every drive command: what went wrong, and what to do about it.

use std::io;

/// A reply that cannot be decoded: too short for its layout.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what}: {len} bytes, expected at least {need}")]
pub struct ParseError {
    pub what: &'static str,
    pub len: usize,
    pub need: usize,
}

/// The first `N` bytes of `data` as an array, or a [`ParseError`] naming the structure.
pub(crate) fn fixed<'a, const N: usize>(
    what: &'static str,
    data: &'a [u8],
) -> Result<&'a [u8; N], ParseError> {
    data.get(..N)
        .and_then(|s| s.try_into().ok())
        .ok_or(ParseError {
            what,
            len: data.len(),
            need: N,
        })
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The path could not be opened.
    #[error("cannot open {path}: {source}")]
    Open { path: String, source: io::Error },

    /// Passthrough is privileged: NVMe admin commands need CAP_SYS_ADMIN, ATA pass-through
    /// through SG_IO needs CAP_SYS_RAWIO.
    #[error("sending {command} to the drive was denied: drive passthrough needs root (CAP_SYS_ADMIN for NVMe, CAP_SYS_RAWIO for SATA): run as root")]
    NeedsRoot { command: &'static str },

    /// The drive answered with an error status.
    #[error("the drive refused {command}: {reason}")]
    Refused {
        command: &'static str,
        reason: String,
    },

    /// The kernel could not deliver the command (errno).
    #[error("{command} failed in the kernel: {source}")]
    Io {
        command: &'static str,
        source: io::Error,
    },

    /// The drive's answer was too short to decode.
    #[error("the drive's answer to {command} is malformed: {source}")]
    Parse {
        command: &'static str,
        source: ParseError,
    },

    /// The drive cannot do what was asked (a feature it does not report).
    #[error("{0}")]
    Unsupported(String),

    /// The drive is in a state that forbids the command; the message names the way out.
    #[error("{0}")]
    State(String),

    /// A long operation (sanitize) did not finish in time.
    #[error("{command} still running after {seconds} s (last progress {percent:.1}%): it goes on in the drive; check again later")]
    Timeout {
        command: &'static str,
        seconds: u64,
        percent: f64,
    },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Map an errno from a passthrough ioctl.
pub(crate) fn ioctl_error(command: &'static str, e: io::Error) -> Error {
    match e.raw_os_error() {
        Some(libc::EACCES) | Some(libc::EPERM) => Error::NeedsRoot { command },
        _ => Error::Io { command, source: e },
    }
}
