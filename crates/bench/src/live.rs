//! A run stored in the Bench as it is measured: a suite's after each step (incomplete until
//! its last), and every command's once more as it ends. A Bench out of reach never stops or
//! slows the measurement: the results are on disk, and the next store tries again (a store
//! takes the whole directory, so it stores everything so far). At the end a run still not
//! stored is retried with backoff for a bounded time (`--store-wait`) before the command
//! gives up with the `bench push` hint. What there is to tell comes back as [`Note`]s and
//! [`Wait`]s; the caller shows them.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::db::{with_causes, Bench, BenchError, Location, RunRecord};
use crate::term::printable;

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

/// How often the end's wait looks at Ctrl-C and reports the time left.
const TICK: Duration = Duration::from_millis(100);

/// What changed in a run's place in the Bench, worth telling; its Display says it.
#[derive(Debug)]
pub enum Note<'a> {
    /// Stored for the first time (and updated after each step from now on).
    Stored { id: i64, db: &'a Path },
    /// Stored now that the Bench answers again.
    Back { id: i64, db: &'a Path },
    /// The Bench is out of reach: the results stay in `dir`, the next store tries again.
    OutOfReach {
        error: &'a BenchError,
        dir: &'a Path,
    },
    /// Not stored for a reason retrying cannot fix: no more tries.
    GaveUp {
        error: &'a BenchError,
        dir: &'a Path,
    },
    /// At the end: where the run is.
    Kept { id: i64, db: &'a Path },
    /// At the end: not stored, and how to store it later.
    NotStored {
        error: &'a BenchError,
        dir: &'a Path,
    },
}

impl fmt::Display for Note<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Note::Stored { id, db } => write!(
                f,
                "stored in the Bench as run {id} ({}); updated after each step",
                shown(db)
            ),
            Note::Back { id, db } => write!(
                f,
                "stored in the Bench as run {id} ({}) now that it answers again",
                shown(db)
            ),
            Note::OutOfReach { error, dir } => write!(
                f,
                "the Bench is out of reach ({}): the results stay in {} and are stored when it \
                 answers again",
                with_causes(*error),
                dir.display()
            ),
            Note::GaveUp { error, dir } => write!(
                f,
                "not stored in the Bench: {}; no more tries this run (the results are in {dir}: \
                 `ssdlab bench push {dir}` stores them once that is fixed)",
                with_causes(*error),
                dir = dir.display()
            ),
            Note::Kept { id, db } => {
                write!(f, "stored in the Bench as run {id} ({})", shown(db))
            }
            Note::NotStored { error, dir } => write!(
                f,
                "not stored in the Bench: {}\n  the results are in {dir}; store them later \
                 with `ssdlab bench push {dir}`",
                with_causes(*error),
                dir = dir.display()
            ),
        }
    }
}

/// The end's wait for a Bench out of reach, as it goes; its Display says it.
#[derive(Debug)]
pub enum Wait<'a> {
    /// The wait begins: out of reach for `error`, trying again for up to `left`.
    Begins {
        error: &'a BenchError,
        dir: &'a Path,
        left: Duration,
    },
    /// Between tries, every tick: try number `next` comes in `due`, the wait ends in `left`.
    Pause {
        next: u32,
        due: Duration,
        left: Duration,
    },
}

impl fmt::Display for Wait<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Wait::Begins { error, dir, left } => write!(
                f,
                "the Bench is out of reach ({}): trying again for up to {:.0} s; Ctrl-C stops \
                 waiting (the results stay in {dir}; `ssdlab bench push {dir}` stores them \
                 later)",
                with_causes(*error),
                left.as_secs_f64(),
                dir = dir.display()
            ),
            Wait::Pause { next, due, left } => write!(
                f,
                "waiting for the Bench: try {next} in {} s ({} s left)",
                due.as_secs() + 1,
                left.as_secs()
            ),
        }
    }
}

impl LiveStore {
    /// Run `run_id` of results directory `dir` in the Bench at `db` (None: not stored), the
    /// end waiting up to `wait` for a Bench out of reach.
    pub fn new(db: Option<PathBuf>, dir: &Path, run_id: &str, wait: Duration) -> LiveStore {
        LiveStore {
            db,
            dir: dir.to_path_buf(),
            run_id: run_id.to_string(),
            wait,
            state: State::Untried,
        }
    }

    /// When the end's retries stop: `wait` from now. Several runs ending together share one.
    pub fn deadline(&self) -> Instant {
        Instant::now() + self.wait
    }

    /// Store the run as its directory holds it now; a failure is remembered. A failure
    /// retrying cannot fix is not tried again. Returns a note when something changed worth
    /// telling: first stored, out of reach, stored again, given up.
    pub fn store(&mut self) -> Option<Note<'_>> {
        let db = self.db.as_deref()?;
        if matches!(&self.state, State::Failed(e) if !e.is_transient()) {
            return None;
        }
        let failing = matches!(self.state, State::Failed(_));
        let first = matches!(self.state, State::Untried | State::Nothing);
        self.state = match attempt(db, &self.dir, &self.run_id) {
            Ok(Some(id)) => State::Stored(id),
            Ok(None) => State::Nothing,
            Err(e) => State::Failed(e),
        };
        let dir = &self.dir;
        match &self.state {
            &State::Stored(id) if failing => Some(Note::Back { id, db }),
            &State::Stored(id) if first => Some(Note::Stored { id, db }),
            State::Failed(error) if error.is_transient() && !failing => {
                Some(Note::OutOfReach { error, dir })
            }
            State::Failed(error) if !error.is_transient() => Some(Note::GaveUp { error, dir }),
            _ => None,
        }
    }

    /// The command ends: store the run unless tried as it is, and while the Bench is out of
    /// reach try again with backoff until `until` or Ctrl-C (`stop`), telling `wait` how it
    /// goes; a command already interrupted does not wait. Returns where the run is, or how
    /// to store it later (None with nothing to tell: not stored by choice, or nothing to
    /// store).
    pub fn finish(
        &mut self,
        until: Instant,
        stop: &AtomicBool,
        mut wait: impl FnMut(Wait),
    ) -> Option<Note<'_>> {
        self.db.as_ref()?;
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
            if let State::Failed(error) = &self.state {
                wait(Wait::Begins {
                    error,
                    dir: &self.dir,
                    left: until.saturating_duration_since(Instant::now()),
                });
            }
            let mut pause = Duration::from_secs(1);
            let mut tries = 1;
            while out_of_reach(&self.state) && !stop.load(Ordering::Relaxed) {
                if Instant::now() >= until {
                    break;
                }
                let next = (Instant::now() + pause).min(until);
                while Instant::now() < next && !stop.load(Ordering::Relaxed) {
                    wait(Wait::Pause {
                        next: tries + 1,
                        due: next.saturating_duration_since(Instant::now()),
                        left: until.saturating_duration_since(Instant::now()),
                    });
                    std::thread::sleep(TICK);
                }
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                self.store();
                tries += 1;
                pause = (pause * 2).min(MAX_BACKOFF);
            }
        }
        let (db, dir) = (self.db.as_deref()?, &self.dir);
        match &self.state {
            &State::Stored(id) => Some(Note::Kept { id, db }),
            State::Failed(error) => Some(Note::NotStored { error, dir }),
            _ => None,
        }
    }
}

/// Store the run `run_id` of `dir` now: its id in the Bench, or None while the directory
/// holds none of its results.
fn attempt(db: &Path, dir: &Path, run_id: &str) -> Result<Option<i64>, BenchError> {
    let runs = match RunRecord::from_dir(dir) {
        Ok(runs) => runs,
        // Before the first result there is nothing to store.
        Err(_) if suite::results_dir::read_results(dir).is_ok_and(|r| r.is_empty()) => {
            return Ok(None)
        }
        Err(e) => return Err(e),
    };
    let Some(run) = runs.iter().find(|r| r.run_id == run_id) else {
        // Results of another run only: storing nothing would lose this one silently.
        let theirs: Vec<&str> = runs.iter().map(|r| r.run_id.as_str()).collect();
        return Err(BenchError::Input(format!(
            "{} holds results of run {} but none of this run ({run_id})",
            dir.display(),
            theirs.join(", "),
        )));
    };
    Ok(Some(Bench::open(db)?.store(run)?.id()))
}

/// Where the Bench is, fit to print: without its password (it was stored there, so it
/// parses).
fn shown(db: &Path) -> String {
    Location::parse(db).map_or_else(
        |_| "--db".into(),
        |l| printable(&l.to_string()).into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::tests::result;

    /// A results directory holding a result of run `run_id`.
    fn measured(dir: &Path, run_id: &str) {
        let mut r = result("seq-write", None, "a", "2026-01-01T00:00:00Z", 1.0);
        r.run_id = Some(run_id.into());
        suite::results_dir::write_result(dir, &r).unwrap();
    }

    fn run_id() -> String {
        uuid::Uuid::new_v4().to_string()
    }

    #[test]
    fn a_run_is_stored_once_it_has_results_and_told_once() {
        let tmp = tempfile::tempdir().unwrap();
        let (db, dir) = (tmp.path().join("bench.db"), tmp.path().join("out"));
        std::fs::create_dir(&dir).unwrap();
        let id = run_id();
        let mut live = LiveStore::new(Some(db), &dir, &id, Duration::ZERO);
        assert!(live.store().is_none(), "nothing to store before a result");
        measured(&dir, &id);
        let note = live.store().map(|n| n.to_string());
        assert!(
            note.as_deref()
                .is_some_and(|n| n.starts_with("stored in the Bench as run 1 ")),
            "{note:?}"
        );
        assert!(live.store().is_none(), "stored again, nothing new to tell");
        let stop = AtomicBool::new(false);
        let end = live.finish(Instant::now(), &stop, |w| panic!("no wait: {w}"));
        assert!(matches!(end, Some(Note::Kept { id: 1, .. })), "{end:?}");
    }

    #[test]
    fn results_of_another_run_only_are_given_up_on_with_the_push_hint() {
        let tmp = tempfile::tempdir().unwrap();
        let (db, dir) = (tmp.path().join("bench.db"), tmp.path().join("out"));
        measured(&dir, &run_id());
        let mut live = LiveStore::new(Some(db), &dir, &run_id(), Duration::ZERO);
        let note = live.store().map(|n| n.to_string()).unwrap_or_default();
        assert!(note.contains("no more tries this run"), "{note}");
        assert!(live.store().is_none(), "not tried again");
        let stop = AtomicBool::new(false);
        let end = live.finish(Instant::now(), &stop, |w| panic!("no wait: {w}"));
        let end = end.map(|n| n.to_string()).unwrap_or_default();
        assert!(end.contains("`ssdlab bench push "), "{end}");
    }

    #[test]
    fn a_bench_out_of_reach_is_tried_once_more_at_an_end_whose_wait_is_spent() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("out");
        let id = run_id();
        measured(&dir, &id);
        // A port nothing listens on any more.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let db = PathBuf::from(format!("postgres://ssdlab@127.0.0.1:{port}/bench"));
        let mut live = LiveStore::new(Some(db), &dir, &id, Duration::ZERO);
        let note = live.store().map(|n| n.to_string()).unwrap_or_default();
        assert!(note.starts_with("the Bench is out of reach"), "{note}");
        assert!(live.store().is_none(), "still out of reach: said once");
        let stop = AtomicBool::new(false);
        let end = live.finish(live.deadline(), &stop, |w| panic!("no wait: {w}"));
        assert!(matches!(end, Some(Note::NotStored { .. })), "{end:?}");
    }

    #[test]
    fn a_run_not_to_be_stored_has_nothing_to_tell() {
        let tmp = tempfile::tempdir().unwrap();
        let id = run_id();
        measured(tmp.path(), &id);
        let mut live = LiveStore::new(None, tmp.path(), &id, Duration::from_secs(60));
        assert!(live.store().is_none());
        let stop = AtomicBool::new(false);
        assert!(live
            .finish(live.deadline(), &stop, |w| panic!("no wait: {w}"))
            .is_none());
    }
}
