//! `ssdlab run TEST`: the flags made a request ([`run::flags`]), carried out by the one
//! lifecycle ([`run::execute`]), shown on the terminal.

use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use bench::live::LiveStore;
use run::flags::RunFlags;
use run::{Ending, Face, Outcome, Request};
use suite::context::Observer;

use crate::output;
use crate::progress::Bar;

pub fn run(flags: RunFlags) -> anyhow::Result<ExitCode> {
    let quiet = flags.common.quiet;
    execute(&flags.request()?, "run", quiet)
}

/// Carry out `request` (a run or a replay: `what`), showing it on the terminal; the exit
/// status says how it ended.
pub fn execute(request: &Request, what: &str, quiet: bool) -> anyhow::Result<ExitCode> {
    let stop = stop_flag()?;
    let mut face = Terminal {
        bar: Bar::new(quiet, &stop),
        quiet,
    };
    let outcome = run::execute(request, &mut face, &stop)?;
    say_ending(&outcome, what);
    Ok(ExitCode::from(outcome.exit_code()))
}

/// Ctrl-C or SIGTERM sets the flag (the run stops cleanly and keeps its results); a second
/// one exits at once.
pub fn stop_flag() -> anyhow::Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    use signal_hook::flag;
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [SIGINT, SIGTERM] {
        flag::register_conditional_shutdown(sig, 130, Arc::clone(&stop))?;
        flag::register(sig, Arc::clone(&stop))?;
    }
    Ok(stop)
}

/// A run on the terminal: a progress bar, then the summary, where the results and report
/// are, and the Bench's wait.
pub struct Terminal {
    pub bar: Bar,
    pub quiet: bool,
}

impl Face for Terminal {
    fn observer(&mut self) -> &mut dyn Observer {
        &mut self.bar
    }

    fn warning(&mut self, text: &str) {
        // Quiet or not: it says where the IOs land.
        eprintln!("warning: {text}");
    }

    fn measured(&mut self) {
        self.bar.close();
    }

    fn written(&mut self, outcome: &Outcome) {
        if self.quiet {
            return;
        }
        output::print_summary(&outcome.results);
        if let (Some(dir), false) = (&outcome.dir, outcome.results.is_empty()) {
            eprintln!("results: {}", dir.display());
        }
        if let Some(report) = &outcome.report {
            eprintln!("report: {}", report.display());
        }
    }

    fn store(&mut self, store: &mut LiveStore, stop: &AtomicBool) {
        let until = store.deadline();
        crate::live_store::finish(store, until, stop, self.quiet);
    }
}

/// Say how a run (or a replay: `what`) ended when it did not end complete.
pub fn say_ending(outcome: &Outcome, what: &str) {
    let dir = outcome
        .dir
        .as_ref()
        .map_or(String::new(), |d| d.display().to_string());
    match outcome.ending() {
        Ending::Complete => {}
        Ending::Lost => {
            for why in &outcome.lost {
                eprintln!("{why}");
            }
            eprintln!("  the measurement is kept in {dir}; only what is named above is lost");
        }
        Ending::Corrupt(text) => eprintln!("{text}"),
        Ending::Failed(why) => eprintln!(
            "the {what} failed: {why}\n  what was measured before is saved with \"complete\": \
             false in {dir}"
        ),
        Ending::Incomplete => eprintln!(
            "the {what} did not complete: results so far are saved with \"complete\": false"
        ),
    }
}
