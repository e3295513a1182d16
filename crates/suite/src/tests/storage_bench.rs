//! The Storage Bench (METHODOLOGY section 7) replays application traces; it needs the trace
//! replay of the traces work, and until that lands it reports itself unavailable rather
//! than producing a number.

use crate::SuiteError;

pub fn run() -> Result<(), SuiteError> {
    Err(SuiteError::Unavailable(
        "storage-bench: trace replay is not built yet, so there is no Storage Bench result; \
         the other tests are unaffected"
            .into(),
    ))
}
