//! A run stored in the Bench as it is measured: a suite's after each step (incomplete until
//! its last), and every command's once more as it ends. A Bench out of reach never stops or
//! slows the measurement: the results are on disk, and the next store tries again (a store
//! takes the whole directory, so it stores everything so far). At the end a run still not
//! stored is retried with backoff for a bounded time (`--store-wait`) before the command
//! gives up with the `bench push` hint.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use bench::db::{with_causes, Bench, BenchError, Location, RunRecord};
use bench::term::printable;

/// One run's place in the Bench: stored or not, and why not.
pub struct LiveStore {
    /// The Bench, or None with --no-store.
    db: Option<PathBuf>,
    dir: PathBuf,
    run_id: String,
    wait: Duration,
    state: State,
}

enum State {
    Untried,
    /// The directory holds nothing of the run yet.
    Nothing,
    Stored(i64),
    /// Not stored as the directory now is: worth another try when transient.
    Failed(BenchError),
}

/// The longest pause between tries at the end.
const MAX_BACKOFF: Duration = Duration::from_secs(15);

impl LiveStore {
    pub fn new(db: Option<PathBuf>, dir: &Path, run_id: &str, wait: Duration) -> LiveStore {
        LiveStore {
            db,
            dir: dir.to_path_buf(),
            run_id: run_id.to_string(),
            wait,
            state: State::Untried,
        }
    }

    /// When the end's retries stop: `--store-wait` from now. Several runs ending together
    /// share one.
    pub fn deadline(&self) -> Instant {
        Instant::now() + self.wait
    }

    /// Store the run as its directory holds it now; a failure is remembered. A failure
    /// retrying cannot fix is not tried again. Returns a note for the user when something
    /// changed worth telling: first stored, out of reach, stored again, given up.
    pub fn store(&mut self) -> Option<String> {
        let db = self.db.clone()?;
        if matches!(&self.state, State::Failed(e) if !e.is_transient()) {
            return None;
        }
        let failing = matches!(self.state, State::Failed(_));
        let first = matches!(self.state, State::Untried | State::Nothing);
        self.state = match self.attempt(&db) {
            Ok(Some(id)) => State::Stored(id),
            Ok(None) => State::Nothing,
            Err(e) => State::Failed(e),
        };
        let shown = shown(&db);
        let dir = self.dir.display();
        match &self.state {
            State::Stored(id) if failing => Some(format!(
                "stored in the Bench as run {id} ({shown}) now that it answers again"
            )),
            State::Stored(id) if first => Some(format!(
                "stored in the Bench as run {id} ({shown}); updated after each step"
            )),
            State::Failed(e) if e.is_transient() && !failing => Some(format!(
                "the Bench is out of reach ({}): the results stay in {dir} and are stored \
                 when it answers again",
                with_causes(e)
            )),
            State::Failed(e) if !e.is_transient() => Some(format!(
                "not stored in the Bench: {}; no more tries this run (the results are in \
                 {dir}: `ssdlab bench push {dir}` stores them once that is fixed)",
                with_causes(e)
            )),
            _ => None,
        }
    }

    /// The command ends: store the run unless tried as it is, and while the Bench is out of
    /// reach try again with backoff until `until` or Ctrl-C (`stop`); a command already
    /// interrupted does not wait. Then say where the run is, or how to store it later.
    pub fn finish(&mut self, until: Instant, stop: &AtomicBool, quiet: bool) {
        let Some(db) = self.db.clone() else {
            return;
        };
        let dir = self.dir.display().to_string();
        let out_of_reach = |s: &State| matches!(s, State::Failed(e) if e.is_transient());
        let interrupted = stop.load(Ordering::Relaxed);
        if matches!(self.state, State::Untried)
            // The wait is spent (by another run: several drives share one): one more try.
            || (out_of_reach(&self.state) && !interrupted && Instant::now() >= until)
        {
            self.store();
        }
        // A command the user interrupted does not wait.
        if out_of_reach(&self.state) && !interrupted && Instant::now() < until {
            if let State::Failed(e) = &self.state {
                eprintln!(
                    "the Bench is out of reach ({}): trying again for up to {:.0} s; Ctrl-C \
                     stops waiting (the results stay in {dir}; `ssdlab bench push {dir}` \
                     stores them later)",
                    with_causes(e),
                    until
                        .saturating_duration_since(Instant::now())
                        .as_secs_f64()
                );
            }
            let spinner = match quiet {
                true => indicatif::ProgressBar::hidden(),
                // Drawn on a terminal only.
                false => indicatif::ProgressBar::new_spinner(),
            };
            let mut pause = Duration::from_secs(1);
            let mut tries = 1;
            while out_of_reach(&self.state) && !stop.load(Ordering::Relaxed) {
                if Instant::now() >= until {
                    break;
                }
                let next = (Instant::now() + pause).min(until);
                while Instant::now() < next && !stop.load(Ordering::Relaxed) {
                    spinner.set_message(format!(
                        "waiting for the Bench: try {} in {} s ({} s left)",
                        tries + 1,
                        next.saturating_duration_since(Instant::now()).as_secs() + 1,
                        until.saturating_duration_since(Instant::now()).as_secs()
                    ));
                    spinner.tick();
                    std::thread::sleep(Duration::from_millis(100));
                }
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                self.store();
                tries += 1;
                pause = (pause * 2).min(MAX_BACKOFF);
            }
            spinner.finish_and_clear();
        }
        match &self.state {
            State::Stored(id) if !quiet => {
                eprintln!("stored in the Bench as run {id} ({})", shown(&db))
            }
            State::Failed(e) => eprintln!(
                "warning: not stored in the Bench: {}\n  the results are in {dir}; store them \
                 later with `ssdlab bench push {dir}`",
                with_causes(e)
            ),
            _ => {}
        }
    }

    /// Store the run's results now: its id in the Bench, or None while the directory holds
    /// none of them.
    fn attempt(&self, db: &Path) -> Result<Option<i64>, BenchError> {
        let runs = match RunRecord::from_dir(&self.dir) {
            Ok(runs) => runs,
            // Before the first result there is nothing to store.
            Err(_) if suite::results_dir::read_results(&self.dir).is_ok_and(|r| r.is_empty()) => {
                return Ok(None)
            }
            Err(e) => return Err(e),
        };
        let Some(run) = runs.iter().find(|r| r.run_id == self.run_id) else {
            // Results of another run only: storing nothing would lose this one silently.
            let theirs: Vec<&str> = runs.iter().map(|r| r.run_id.as_str()).collect();
            return Err(BenchError::Input(format!(
                "{} holds results of run {} but none of this run ({})",
                self.dir.display(),
                theirs.join(", "),
                self.run_id
            )));
        };
        Ok(Some(Bench::open(db)?.store(run)?.id()))
    }
}

/// Where the Bench is, fit to print: without its password (it was stored there, so it
/// parses).
fn shown(db: &Path) -> String {
    Location::parse(db).map_or_else(
        |_| "--db".into(),
        |l| printable(&l.to_string()).into_owned(),
    )
}
