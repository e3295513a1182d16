//! The simulated drives a fit measures: a drive's figures are a pure function of its spec
//! (the drive's own seed is in it), so each is measured once, kept in memory and, when asked,
//! in a file of JSON lines that a stopped fit reads back to resume where it was. A drive is
//! measured at full length or screened ([`Screen`]), each kept apart; on this machine, or
//! wherever a [`Measurer`] sends it (the Python package's Dask client). How long each took
//! is kept beside its figures, so a slow fit shows which drives made it slow ([`TimeSpent`]).

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::screen::Screen;
use crate::fidelity::{Figures, Measure};

/// One line of the cache file.
#[derive(Serialize, Deserialize)]
struct Line {
    spec: String,
    measure: String,
    /// The screen's factor; 1 (not written) for a full-length run.
    #[serde(default = "full_length", skip_serializing_if = "is_full_length")]
    screen: u32,
    figures: Figures,
    /// How long the measurement took (absent in files of fits before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seconds: Option<f64>,
}

fn full_length() -> u32 {
    1
}

fn is_full_length(factor: &u32) -> bool {
    *factor == 1
}

type Key = (String, Measure, u32);

/// Measures a drive elsewhere than on this thread: `(spec, measurement, time scale)` to what
/// [`Measure::run_shortened`] gives for them, which it must equal (the Python package sends
/// it to a Dask cluster). An `Err` is a drive the simulator refused.
pub type Measurer = Arc<dyn Fn(&str, Measure, f64) -> Result<Figures, String> + Send + Sync>;

/// One measurement a fit ran, and its wall seconds on the thread that ran it (or the round
/// trip to where a [`Measurer`] ran it).
#[derive(Clone, Debug, Serialize)]
pub struct Spent {
    pub spec: String,
    pub measure: Measure,
    /// The screen's factor (1: full length).
    pub screen: u32,
    pub seconds: f64,
}

/// Where a fit's simulation time went: the measurements it ran (not those read back from a
/// file), screened and at full length, and the slowest of them.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TimeSpent {
    pub screened: usize,
    pub screened_s: f64,
    pub full_length: usize,
    pub full_length_s: f64,
    /// The slowest measurements, the slowest first.
    pub slowest: Vec<Spent>,
}

/// How many of the slowest measurements a [`TimeSpent`] names.
const SLOWEST: usize = 3;

/// The measured drives: (spec, measurement, screen factor) -> figures.
pub struct Evaluations {
    known: Mutex<HashMap<Key, Figures>>,
    /// The measurements run here, in the order they finished.
    spent: Mutex<Vec<Spent>>,
    file: Option<Mutex<File>>,
    invalid: AtomicUsize,
    /// Where drives are measured; here when none.
    measurer: Option<Measurer>,
}

impl Evaluations {
    /// Open, reading back what `path` holds (a file a fit left), or empty; drives not known
    /// are measured by `measurer`, here when none.
    pub fn open(path: Option<&Path>, measurer: Option<Measurer>) -> Result<Evaluations, String> {
        let mut known = HashMap::new();
        let file = match path {
            None => None,
            Some(path) => {
                let err = |e: std::io::Error| format!("{}: {e}", path.display());
                if path.exists() {
                    let reader = BufReader::new(File::open(path).map_err(err)?);
                    for (n, line) in reader.lines().enumerate() {
                        let line = line.map_err(err)?;
                        let Ok(l) = serde_json::from_str::<Line>(&line) else {
                            // A line cut short by a stop is re-measured, nothing else lost.
                            eprintln!(
                                "{}: line {} is not an evaluation; it is measured again",
                                path.display(),
                                n + 1
                            );
                            continue;
                        };
                        if let Some(m) = Measure::named(&l.measure) {
                            known.insert((l.spec, m, l.screen), l.figures);
                        }
                    }
                }
                let f = OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(err)?;
                Some(Mutex::new(f))
            }
        };
        Ok(Evaluations {
            known: Mutex::new(known),
            spent: Mutex::new(Vec::new()),
            file,
            invalid: AtomicUsize::new(0),
            measurer,
        })
    }

    /// The figures of the drive `spec` on `measures` at full length, measured where not
    /// known yet.
    pub fn figures(&self, spec: &str, measures: &[Measure]) -> Result<Figures, String> {
        self.screened(spec, measures, Screen { factor: 1 })
    }

    /// The figures of the drive `spec` on `measures` through `screen`; the measurements not
    /// known yet run in parallel.
    pub fn screened(
        &self,
        spec: &str,
        measures: &[Measure],
        screen: Screen,
    ) -> Result<Figures, String> {
        // The longest first, so the last to finish is a short one and no core idles at the
        // end (a held-out TRIM torture started last ran alone for minutes).
        let mut measures = measures.to_vec();
        measures.sort_by_key(|m| std::cmp::Reverse(m.cost()));
        let each: Vec<Result<Figures, String>> = measures
            .par_iter()
            .map(|&m| self.measure(spec, m, screen))
            .collect();
        let mut all = Figures::new();
        for f in each {
            match f {
                Ok(f) => all.extend(f),
                Err(e) => {
                    // One drive refused, however many of its measurements found it out.
                    self.invalid.fetch_add(1, Ordering::Relaxed);
                    return Err(e);
                }
            }
        }
        Ok(all)
    }

    /// One measurement of a drive, kept.
    fn measure(&self, spec: &str, m: Measure, screen: Screen) -> Result<Figures, String> {
        let screen = screen.of(m);
        let key = (spec.to_string(), m, screen.factor);
        if let Some(f) = self.known.lock().expect("evaluations").get(&key) {
            return Ok(f.clone());
        }
        let drive = screen.spec(spec)?;
        let started = Instant::now();
        let measured = match &self.measurer {
            Some(elsewhere) => elsewhere(&drive, m, screen.time_scale()),
            None => m.run_shortened(&drive, screen.time_scale()),
        };
        let seconds = started.elapsed().as_secs_f64();
        let f: Figures = measured?
            .into_iter()
            // JSON has no NaN: a figure the run did not give is left out.
            .filter(|(_, v)| v.is_finite())
            .collect();
        self.keep(&key, &f, seconds)?;
        self.spent.lock().expect("evaluations").push(Spent {
            spec: spec.to_string(),
            measure: m,
            screen: screen.factor,
            seconds,
        });
        self.known
            .lock()
            .expect("evaluations")
            .insert(key, f.clone());
        Ok(f)
    }

    fn keep(&self, (spec, m, screen): &Key, figures: &Figures, seconds: f64) -> Result<(), String> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        let line = serde_json::to_string(&Line {
            spec: spec.clone(),
            measure: m.prefix().to_string(),
            screen: *screen,
            figures: figures.clone(),
            seconds: Some(seconds),
        })
        .map_err(|e| e.to_string())?;
        writeln!(file.lock().expect("evaluations file"), "{line}")
            .map_err(|e| format!("cannot keep an evaluation: {e}"))
    }

    /// Drives the simulator refused (a layout that does not fit, a key out of range).
    pub fn invalid(&self) -> usize {
        self.invalid.load(Ordering::Relaxed)
    }

    /// Where the time of the measurements run here went.
    pub fn time_spent(&self) -> TimeSpent {
        let spent = self.spent.lock().expect("evaluations");
        let mut time = TimeSpent::default();
        for s in spent.iter() {
            if s.screen == 1 {
                time.full_length += 1;
                time.full_length_s += s.seconds;
            } else {
                time.screened += 1;
                time.screened_s += s.seconds;
            }
        }
        let mut slowest = spent.clone();
        slowest.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
        slowest.truncate(SLOWEST);
        time.slowest = slowest;
        time
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_screen_shrinks_every_measurement_but_the_whole_drive_fill() {
        let drives = Evaluations::open(None, None).unwrap();
        let spec = "default,slc_cache=1GiB";
        let screen = Screen { factor: 4 };
        let screened = drives
            .screened(spec, &[Measure::Fill, Measure::AsSsd], screen)
            .unwrap();
        let fill = Measure::Fill.run(spec).unwrap();
        assert!(fill.contains_key("fill.cache_gb"), "{fill:?}");
        for (name, v) in &fill {
            assert_eq!(screened[name], *v, "{name}");
        }
        // The sequential test is measured on the drive a quarter the size.
        let small = Measure::AsSsd.run(&screen.spec(spec).unwrap()).unwrap();
        for (name, v) in &small {
            assert_eq!(screened[name], *v, "{name}");
        }
        assert_ne!(small, Measure::AsSsd.run(spec).unwrap());
    }

    #[test]
    fn the_time_of_what_ran_here_is_kept_and_of_what_was_read_back_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("evals.jsonl");
        let spec = "default";
        let drives = Evaluations::open(Some(&path), None).unwrap();
        let screen = Screen { factor: 4 };
        drives.screened(spec, &[Measure::AsSsd], screen).unwrap();
        drives.figures(spec, &[Measure::AsSsd]).unwrap();
        drives.figures(spec, &[Measure::AsSsd]).unwrap();
        let time = drives.time_spent();
        assert_eq!((time.screened, time.full_length), (1, 1));
        let [slow, fast] = &time.slowest[..] else {
            panic!("{:?}", time.slowest)
        };
        assert!(
            slow.seconds >= fast.seconds && fast.seconds > 0.0,
            "{time:?}"
        );
        assert_eq!(
            time.screened_s + time.full_length_s,
            slow.seconds + fast.seconds
        );
        // Each line of the file says how long its measurement took.
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text.lines().filter(|l| l.contains("\"seconds\":")).count(),
            2
        );
        // A fit that reads them back runs nothing, and counts no time.
        let again = Evaluations::open(Some(&path), None).unwrap();
        again.screened(spec, &[Measure::AsSsd], screen).unwrap();
        assert_eq!(again.time_spent().screened, 0);
    }
}
