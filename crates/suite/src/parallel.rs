//! Several drives reviewed at once: a worker thread each, pinned to a core of its own when
//! there are as many cores as drives (else the scheduler shares them), and where each ran
//! kept with its results, since a drive that shared its core measured less.

use std::fmt;
use std::path::PathBuf;

/// In each drive's directory: where its worker ran.
pub const WORKER_FILE: &str = "worker.txt";

/// Where a drive's worker runs.
#[derive(Debug)]
pub enum Placement {
    /// On this core alone.
    Core(usize),
    /// Wherever the scheduler puts it: fewer cores than drives.
    Shared { cores: usize, drives: usize },
    /// Meant for this core, but pinning it failed.
    PinFailed { core: usize, error: std::io::Error },
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Placement::Core(core) => write!(f, "a worker on core {core}"),
            Placement::Shared { cores, drives } => {
                write!(f, "a worker not pinned ({cores} cores for {drives} drives)")
            }
            Placement::PinFailed { core, error } => {
                write!(f, "a worker not pinned to core {core}: {error}")
            }
        }
    }
}

/// What a worker tells as it goes, besides its review's own progress.
#[derive(Debug)]
pub enum Event<'a> {
    /// Its pinning failed: it runs where the scheduler puts it.
    Unpinned(&'a Placement),
    /// Its placement could not be kept with its results.
    NotRecorded(&'a std::io::Error),
}

impl fmt::Display for Event<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Event::Unpinned(placement) => write!(f, "{placement}"),
            Event::NotRecorded(error) => write!(f, "{WORKER_FILE} not written: {error}"),
        }
    }
}

/// A worker that panicked instead of returning its review.
#[derive(Debug, thiserror::Error)]
#[error("its worker panicked")]
pub struct Panicked;

/// The drives of one command, each with its results directory and its worker's placement.
pub struct Workers {
    dirs: Vec<PathBuf>,
    placements: Vec<Placement>,
}

impl Workers {
    /// Place a worker for each directory's drive on the cores this process may run on.
    pub fn plan(dirs: Vec<PathBuf>) -> Workers {
        Workers::on(allowed_cores(), dirs)
    }

    fn on(cores: Vec<usize>, dirs: Vec<PathBuf>) -> Workers {
        // Pinned only when each drive gets a core of its own.
        let pin = cores.len() >= dirs.len();
        let placements = (0..dirs.len())
            .map(|i| match pin {
                true => Placement::Core(cores[i]),
                false => Placement::Shared {
                    cores: cores.len(),
                    drives: dirs.len(),
                },
            })
            .collect();
        Workers { dirs, placements }
    }

    /// Where drive `i`'s worker is to run.
    pub fn placement(&self, i: usize) -> &Placement {
        &self.placements[i]
    }

    /// Review every drive at once, `review(i)` on drive `i`'s worker; `watch(i, event)` hears
    /// what the workers tell. Each review that succeeds gets its worker's placement in its
    /// directory. The outcomes in the drives' order.
    pub fn run<T, E>(
        self,
        review: impl Fn(usize) -> Result<T, E> + Sync,
        watch: impl Fn(usize, Event) + Sync,
    ) -> Vec<Result<T, E>>
    where
        T: Send,
        E: Send + From<Panicked>,
    {
        let at_once = self.dirs.len();
        let (review, watch) = (&review, &watch);
        std::thread::scope(|scope| {
            let workers: Vec<_> = self
                .dirs
                .into_iter()
                .zip(self.placements)
                .enumerate()
                .map(|(i, (dir, mut placement))| {
                    scope.spawn(move || {
                        if let Placement::Core(core) = placement {
                            if let Err(error) = pin_to_core(core) {
                                placement = Placement::PinFailed { core, error };
                                watch(i, Event::Unpinned(&placement));
                            }
                        }
                        let done = review(i)?;
                        let record = format!("{placement}, {at_once} drives at once\n");
                        if let Err(e) = std::fs::write(dir.join(WORKER_FILE), record) {
                            watch(i, Event::NotRecorded(&e));
                        }
                        Ok(done)
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or_else(|_| Err(Panicked.into())))
                .collect()
        })
    }
}

/// The cores this process may run on, in order.
fn allowed_cores() -> Vec<usize> {
    // SAFETY: a zeroed cpu_set_t is the empty set, filled by the call for this thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

/// Keep the calling thread (and the threads it starts) on `core`.
fn pin_to_core(core: usize) -> std::io::Result<()> {
    // SAFETY: as in allowed_cores; the set names one core this process may run on.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        match libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) {
            0 => Ok(()),
            _ => Err(std::io::Error::last_os_error()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs(tmp: &tempfile::TempDir, n: usize) -> Vec<PathBuf> {
        (0..n).map(|i| tmp.path().join(format!("d{i}"))).collect()
    }

    #[test]
    fn drives_get_a_core_each_only_when_there_are_enough() {
        let tmp = tempfile::tempdir().unwrap();
        let w = Workers::on(vec![2, 5], dirs(&tmp, 2));
        assert_eq!(w.placement(0).to_string(), "a worker on core 2");
        assert_eq!(w.placement(1).to_string(), "a worker on core 5");
        let w = Workers::on(vec![0, 1], dirs(&tmp, 3));
        assert_eq!(
            w.placement(2).to_string(),
            "a worker not pinned (2 cores for 3 drives)"
        );
    }

    #[derive(Debug, PartialEq)]
    enum Failed {
        Review(usize),
        Panicked,
    }

    impl From<Panicked> for Failed {
        fn from(_: Panicked) -> Failed {
            Failed::Panicked
        }
    }

    #[test]
    fn every_drive_is_reviewed_and_its_worker_recorded_when_it_succeeds() {
        let tmp = tempfile::tempdir().unwrap();
        let dirs = dirs(&tmp, 3);
        dirs.iter().for_each(|d| std::fs::create_dir(d).unwrap());
        // A core no machine here has: pinning fails, and says so.
        let w = Workers::on(vec![1023, 0, 1], dirs.clone());
        let unpinned = std::sync::Mutex::new(Vec::new());
        let outcomes = w.run(
            |i| match i {
                0 => Ok(i * 10),
                1 => Err(Failed::Review(i)),
                _ => panic!("a worker panicking, as it may"),
            },
            |i, event| unpinned.lock().unwrap().push((i, event.to_string())),
        );
        assert_eq!(
            outcomes,
            [Ok(0), Err(Failed::Review(1)), Err(Failed::Panicked)]
        );
        let record = std::fs::read_to_string(dirs[0].join(WORKER_FILE)).unwrap();
        assert!(
            record.starts_with("a worker not pinned to core")
                && record.ends_with(", 3 drives at once\n"),
            "{record}"
        );
        assert!(!dirs[1].join(WORKER_FILE).exists());
        let unpinned = unpinned.into_inner().unwrap();
        assert!(unpinned
            .iter()
            .any(|(i, e)| *i == 0 && e.contains("not pinned to core")));
    }
}
