//! The simulated drives a fit measures: a drive's figures are a pure function of its spec
//! (the drive's own seed is in it), so each is measured once, kept in memory and, when asked,
//! in a file of JSON lines that a stopped fit reads back to resume where it was.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::fidelity::{Figures, Measure};

/// One line of the cache file.
#[derive(Serialize, Deserialize)]
struct Line {
    spec: String,
    measure: String,
    figures: Figures,
}

/// The measured drives: (spec, measurement) -> figures.
pub struct Evaluations {
    known: Mutex<HashMap<(String, Measure), Figures>>,
    file: Option<Mutex<File>>,
    invalid: AtomicUsize,
}

impl Evaluations {
    /// Open, reading back what `path` holds (a file a fit left), or empty.
    pub fn open(path: Option<&Path>) -> Result<Evaluations, String> {
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
                            known.insert((l.spec, m), l.figures);
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
            file,
            invalid: AtomicUsize::new(0),
        })
    }

    /// The figures of the drive `spec` on `measures`, measured where not known yet.
    pub fn figures(&self, spec: &str, measures: &[Measure]) -> Result<Figures, String> {
        let mut all = Figures::new();
        for &m in measures {
            let key = (spec.to_string(), m);
            let known = self.known.lock().expect("evaluations").get(&key).cloned();
            let f = match known {
                Some(f) => f,
                None => {
                    let f: Figures = m
                        .run(spec)
                        .inspect_err(|_| {
                            self.invalid.fetch_add(1, Ordering::Relaxed);
                        })?
                        .into_iter()
                        // JSON has no NaN: a figure the run did not give is left out.
                        .filter(|(_, v)| v.is_finite())
                        .collect();
                    self.keep(spec, m, &f)?;
                    self.known
                        .lock()
                        .expect("evaluations")
                        .insert(key, f.clone());
                    f
                }
            };
            all.extend(f);
        }
        Ok(all)
    }

    fn keep(&self, spec: &str, m: Measure, figures: &Figures) -> Result<(), String> {
        let Some(file) = &self.file else {
            return Ok(());
        };
        let line = serde_json::to_string(&Line {
            spec: spec.to_string(),
            measure: m.prefix().to_string(),
            figures: figures.clone(),
        })
        .map_err(|e| e.to_string())?;
        writeln!(file.lock().expect("evaluations file"), "{line}")
            .map_err(|e| format!("cannot keep an evaluation: {e}"))
    }

    /// Drives the simulator refused (a layout that does not fit, a key out of range).
    pub fn invalid(&self) -> usize {
        self.invalid.load(Ordering::Relaxed)
    }
}
