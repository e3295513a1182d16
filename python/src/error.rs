//! ssdlab's errors as one Python exception class, carrying the crates' own messages.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::PyErr;

create_exception!(
    ssdlab,
    SsdlabError,
    PyException,
    "An error ssdlab reported: bad input, a file it cannot read, a drive it cannot simulate."
);

/// The error as Python sees it: its message and its causes, as the CLI prints them.
pub fn to_py<E: std::error::Error + 'static>(e: E) -> PyErr {
    SsdlabError::new_err(message(&e))
}

/// An error of a run or a review, whose message names flags, as a script that gave them as
/// keywords reads it: `--offset` is `offset=` ([`::run::keywords::as_keywords`]).
pub fn in_keywords<E: std::error::Error + 'static>(e: E) -> PyErr {
    SsdlabError::new_err(::run::keywords::as_keywords(&message(&e)))
}

/// The error's message and its causes'.
pub(crate) fn message(e: &(dyn std::error::Error + 'static)) -> String {
    let mut msg = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_msg = s.to_string();
        // thiserror's `{0}` messages already hold their source's text.
        if !msg.contains(&s_msg) {
            msg.push_str(": ");
            msg.push_str(&s_msg);
        }
        source = s.source();
    }
    msg
}

/// An error that is only a message.
pub fn msg(m: impl Into<String>) -> PyErr {
    SsdlabError::new_err(m.into())
}
