//! Why a value given for one of the suite's choices (a methodology, a drive state, a
//! latency target, a preconditioning, a PTS variant) is refused: what was given, what is
//! wrong with it, and what to write instead.

/// A refused value of a choice; the message says what would be accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChoiceError {
    /// Not one of the choice's names.
    #[error("unknown {what} '{given}': use {choices}")]
    Unknown {
        what: &'static str,
        given: String,
        choices: String,
    },
    /// In the choice's syntax, but a part of it is wrong.
    #[error("'{given}' {problem}; {usage}")]
    Malformed {
        given: String,
        problem: String,
        usage: &'static str,
    },
}
