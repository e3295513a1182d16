//! The Bench's live store ([`bench::live`]) on the terminal: the end's wait for a Bench out
//! of reach as a spinner, and where the run is.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use bench::live::{LiveStore, Note, Wait};

/// End `store` (see [`LiveStore::finish`]), showing its wait; then say where the run is, or
/// warn, even when quiet, that it is not stored.
pub fn finish(store: &mut LiveStore, until: Instant, stop: &AtomicBool, quiet: bool) {
    let mut spinner = None;
    let end = store.finish(until, stop, |wait| match wait {
        Wait::Begins { .. } => {
            eprintln!("{wait}");
            spinner = Some(match quiet {
                true => indicatif::ProgressBar::hidden(),
                // Drawn on a terminal only.
                false => indicatif::ProgressBar::new_spinner(),
            });
        }
        Wait::Pause { .. } => {
            if let Some(spinner) = &spinner {
                spinner.set_message(wait.to_string());
                spinner.tick();
            }
        }
    });
    if let Some(spinner) = spinner {
        spinner.finish_and_clear();
    }
    match end {
        Some(kept @ Note::Kept { .. }) if !quiet => eprintln!("{kept}"),
        Some(not @ Note::NotStored { .. }) => eprintln!("warning: {not}"),
        _ => {}
    }
}
