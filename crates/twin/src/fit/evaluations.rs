//! The simulated drives a fit measures: a drive's figures are a pure function of its spec
//! (the drive's own seed is in it), so each is measured once, kept in memory and, when asked,
//! in a file of JSON lines that a stopped fit reads back to resume where it was. A drive is
//! measured at full length or screened ([`Screen`]), each kept apart; on this machine, or
//! wherever a [`Measurer`] sends it (the Python package's Dask client). How long each took
//! is kept beside its figures, so a slow fit shows which drives made it slow ([`TimeSpent`]).
//! A file written by a build that measures differently is refused, not read back: its
//! quickest drive of each measurement is measured again first ([`Evaluations::open`]).

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
use super::{ArgError, FitError};
use crate::fidelity::{Figures, Measure, MeasureError};

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
pub type Measurer = Arc<dyn Fn(&str, Measure, f64) -> Result<Figures, MeasureError> + Send + Sync>;

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
    pub fn open(path: Option<&Path>, measurer: Option<Measurer>) -> Result<Evaluations, FitError> {
        let mut known = HashMap::new();
        // Each (measurement, screen)'s quickest drive in the file, to measure again.
        let mut quickest: HashMap<(Measure, u32), (Key, f64)> = HashMap::new();
        let file = match path {
            None => None,
            Some(path) => {
                let err = |source| FitError::EvaluationsFile {
                    path: path.to_path_buf(),
                    source,
                };
                if path.exists() {
                    let reader = BufReader::new(File::open(path).map_err(err)?);
                    for (n, line) in reader.lines().enumerate() {
                        let line = line.map_err(|e| match e.kind() {
                            std::io::ErrorKind::InvalidData => ArgError::NotEvaluations {
                                path: path.to_path_buf(),
                                line: n + 1,
                            }
                            .into(),
                            _ => err(e),
                        })?;
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
                            let key = (l.spec, m, l.screen);
                            let seconds = l.seconds.unwrap_or(f64::INFINITY);
                            let kind = (m, l.screen);
                            if quickest.get(&kind).is_none_or(|(_, s)| seconds < *s) {
                                quickest.insert(kind, (key.clone(), seconds));
                            }
                            known.insert(key, l.figures);
                        }
                    }
                }
                let sample: Vec<&Key> = quickest.values().map(|(key, _)| key).collect();
                check_same_build(path, &sample, &known, measurer.as_ref())?;
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
    pub fn figures(&self, spec: &str, measures: &[Measure]) -> Result<Figures, FitError> {
        self.screened(spec, measures, Screen { factor: 1 })
    }

    /// The figures of the drive `spec` on `measures` through `screen`; the measurements not
    /// known yet run in parallel.
    pub fn screened(
        &self,
        spec: &str,
        measures: &[Measure],
        screen: Screen,
    ) -> Result<Figures, FitError> {
        // The longest first, so the last to finish is a short one and no core idles at the
        // end (a held-out TRIM torture started last ran alone for minutes).
        let mut measures = measures.to_vec();
        measures.sort_by_key(|m| std::cmp::Reverse(m.cost()));
        let each: Vec<Result<Figures, FitError>> = measures
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
    fn measure(&self, spec: &str, m: Measure, screen: Screen) -> Result<Figures, FitError> {
        let screen = screen.of(m);
        let key = (spec.to_string(), m, screen.factor);
        if let Some(f) = self.known.lock().expect("evaluations").get(&key) {
            return Ok(f.clone());
        }
        let started = Instant::now();
        let f = run(spec, m, screen, self.measurer.as_ref())?;
        let seconds = started.elapsed().as_secs_f64();
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

    fn keep(
        &self,
        (spec, m, screen): &Key,
        figures: &Figures,
        seconds: f64,
    ) -> Result<(), FitError> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        let line = serde_json::to_string(&Line {
            spec: spec.clone(),
            measure: m.prefix().to_string(),
            screen: *screen,
            figures: figures.clone(),
            seconds: Some(seconds),
        })?;
        // One write, so a fit ended by a signal leaves whole lines.
        (file.lock().expect("evaluations file"))
            .write_all(format!("{line}\n").as_bytes())
            .map_err(FitError::Keep)
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

/// One measurement of a drive through `screen`, here or where `measurer` sends it.
fn run(
    spec: &str,
    m: Measure,
    screen: Screen,
    measurer: Option<&Measurer>,
) -> Result<Figures, FitError> {
    let drive = screen.spec(spec)?;
    let measured = match measurer {
        Some(elsewhere) => elsewhere(&drive, m, screen.time_scale()),
        None => m.run_shortened(&drive, screen.time_scale()),
    }?;
    Ok(measured
        .into_iter()
        // JSON has no NaN: a figure the run did not give is left out.
        .filter(|(_, v)| v.is_finite())
        .collect())
}

/// Measures the drives `sample` again and refuses the file when one differs from what it
/// holds. A drive's figures are a pure function of its spec, so a difference means another
/// build of the simulator or of the measurement wrote the file, and reading it back would mix
/// two drives' figures in one fit; one quick drive per measurement catches a change to any
/// measurement's procedure (stop 62's shortened power phases), for 18 drives and 90 s of
/// simulation on a 256 GB drive's file, once on resuming.
fn check_same_build(
    path: &Path,
    sample: &[&Key],
    known: &HashMap<Key, Figures>,
    measurer: Option<&Measurer>,
) -> Result<(), FitError> {
    if sample.is_empty() {
        return Ok(());
    }
    eprintln!(
        "{}: measuring {} of its drives again (one a test and screen), to be sure this ssdlab \
         measures them as the one that wrote it",
        path.display(),
        sample.len()
    );
    let differs = sample.par_iter().find_map_any(|&key| {
        let (spec, m, factor) = key;
        match run(spec, *m, Screen { factor: *factor }, measurer) {
            Ok(now) => first_difference(&known[key], &now),
            Err(e) => Some(format!("figures there and no drive now ({e})")),
        }
        .map(|what| (key, what))
    });
    let Some(((spec, m, factor), what)) = differs else {
        return Ok(());
    };
    Err(FitError::OtherBuild {
        path: path.to_path_buf(),
        measure: *m,
        spec: spec.clone(),
        screen: *factor,
        what,
    })
}

/// The first figure that `now` does not give as `kept` did (to JSON's round trip), said.
fn first_difference(kept: &Figures, now: &Figures) -> Option<String> {
    let same = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(b.abs());
    kept.iter()
        .find_map(|(name, &was)| match now.get(name) {
            None => Some(format!("{name} = {was} there and none now")),
            Some(&is) if !same(was, is) => Some(format!("{name} = {was} there and {is} now")),
            Some(_) => None,
        })
        .or_else(|| {
            now.iter()
                .find(|(name, _)| !kept.contains_key(*name))
                .map(|(name, is)| format!("{name} = {is} now and none there"))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_evaluations_file_is_named_with_what_it_should_be() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("twin.evals.jsonl");
        std::fs::write(&path, b"{\"spec\"\n\xff\xfe\x00binary\n").unwrap();
        let Err(e) = Evaluations::open(Some(&path), None) else {
            panic!("a binary evaluations file was read");
        };
        let e = e.to_string();
        assert!(
            e.starts_with(&format!("{}: line 2 is not text", path.display())),
            "{e}"
        );
        assert!(e.contains("the evaluations a fit wrote"), "{e}");
        assert!(e.contains("-o"), "{e}");
    }

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

    #[test]
    fn a_file_another_build_wrote_is_refused_and_this_builds_is_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("evals.jsonl");
        let drives = Evaluations::open(Some(&path), None).unwrap();
        let screen = Screen { factor: 4 };
        for spec in ["default", "default,op=20%"] {
            drives.screened(spec, &[Measure::AsSsd], screen).unwrap();
        }
        drop(drives);
        assert!(Evaluations::open(Some(&path), None).is_ok());
        // Another build's figure, as the quickest drive's: every line says how long it took,
        // so the slower one is made the quicker to be sure the check measures it.
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<Line> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let (name, v) = lines[1].figures.iter_mut().next().unwrap();
        let name = name.clone();
        *v *= 1.01;
        lines[1].seconds = Some(0.0);
        let other: String = lines
            .iter()
            .map(|l| serde_json::to_string(l).unwrap() + "\n")
            .collect();
        std::fs::write(&path, other).unwrap();
        let err = Evaluations::open(Some(&path), None)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("measures differently") && err.contains(&name),
            "{err}"
        );
        assert!(
            err.contains("default,op=20%") && err.contains("1/4"),
            "{err}"
        );
        assert!(err.contains("delete the file"), "{err}");
    }
}
