//! The fidelity scorecard: every figure and claim the review articles in `shared/seeds/`
//! publish that a preset can be checked against (`claims.toml`), the measurements that check
//! them (`measure.rs`), and the outcome of the last full run (`scorecard.tsv`, written by
//! `ssdlab sim validate --record`), which `ssdlab sim show` quotes.
//!
//! A claim is checked on simulated figures: a value within a tolerance, a bound, or an
//! ordering between drives (or between two figures of one drive).

pub mod corpus;
pub mod measure;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

pub use measure::{Figures, Measure, MeasureError};

/// The claims, as committed.
pub const CLAIMS_TOML: &str = include_str!("claims.toml");
/// The last full run's outcomes, as committed.
pub const SCORECARD_TSV: &str = include_str!("scorecard.tsv");
/// Where `--record` writes, relative to the workspace root.
pub const SCORECARD_PATH: &str = "crates/twin/src/fidelity/scorecard.tsv";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// Within `tolerance` percent of `published`.
    Value,
    AtMost,
    AtLeast,
    /// `published` = [low, high].
    Between,
    /// Less or greater than `than` (times `factor`).
    Less,
    Greater,
    /// Within `tolerance` percent of `than`.
    Near,
    /// The lowest or highest of `among`.
    Lowest,
    Highest,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    pub id: String,
    /// "spec" (a spec-sheet figure an article prints) or "review" (what the reviewer measured
    /// or saw).
    pub kind: String,
    /// The claim in words.
    pub claim: String,
    /// The seed article and its words.
    pub source: String,
    /// The drives the claim is about: each must meet it.
    pub on: Vec<String>,
    pub metric: String,
    pub check: Check,
    #[serde(default)]
    pub published: Option<toml::Value>,
    /// Percent, for value and near.
    #[serde(default)]
    pub tolerance: Option<f64>,
    /// "drive" or "drive:metric" to compare with (less, greater, near).
    #[serde(default)]
    pub than: Option<String>,
    #[serde(default)]
    pub factor: Option<f64>,
    /// Drives compared with (lowest, highest).
    #[serde(default)]
    pub among: Vec<String>,
    /// Part of the fast subset `cargo test` runs.
    #[serde(default)]
    pub fast: bool,
}

#[derive(Deserialize)]
struct ClaimsFile {
    claim: Vec<Claim>,
}

/// Why a table of claims does not parse.
#[derive(Debug, thiserror::Error)]
pub enum ClaimsError {
    /// The parser's message, each line it quotes of the table cut short.
    #[error("{}", excerpt(&.0.to_string()))]
    Parse(#[from] toml::de::Error),
    /// The committed table's.
    #[error("claims.toml: {0}")]
    Committed(Box<ClaimsError>),
}

/// Every claim of the table.
pub fn claims() -> Result<Vec<Claim>, ClaimsError> {
    parse_claims(CLAIMS_TOML).map_err(|e| ClaimsError::Committed(Box::new(e)))
}

/// Claims in the table's format (`[[claim]]` entries), from a file of the user's.
pub fn parse_claims(text: &str) -> Result<Vec<Claim>, ClaimsError> {
    let file: ClaimsFile = toml::from_str(text)?;
    Ok(file.claim)
}

/// A parser's message with each line it quotes of the input cut short: a file of one huge
/// line must not come back whole in its error.
fn excerpt(message: &str) -> String {
    const WIDTH: usize = 160;
    message
        .lines()
        .take(12)
        .map(|l| match l.char_indices().nth(WIDTH) {
            Some((at, _)) => format!("{} ...", &l[..at]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl Claim {
    /// (drive, metric) pairs the claim reads.
    pub fn inputs(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = self
            .on
            .iter()
            .map(|d| (d.clone(), self.metric.clone()))
            .collect();
        if let Some(than) = &self.than {
            for d in &self.on {
                v.push(split_than(than, d, &self.metric));
            }
        }
        for d in &self.among {
            v.push((d.clone(), self.metric.clone()));
        }
        v
    }

    /// Every drive the claim needs measured.
    pub fn drives(&self) -> BTreeSet<String> {
        self.inputs().into_iter().map(|(d, _)| d).collect()
    }

    /// What the article says, for the table.
    pub fn published_text(&self) -> String {
        let num = number;
        let p = self.published.as_ref();
        match self.check {
            Check::Value => format!(
                "{} ±{}%",
                p.and_then(num).map_or("?".into(), fmt_num),
                self.tolerance.unwrap_or(15.0)
            ),
            Check::AtMost => format!("<= {}", p.and_then(num).map_or("?".into(), fmt_num)),
            Check::AtLeast => format!(">= {}", p.and_then(num).map_or("?".into(), fmt_num)),
            Check::Between => match p.and_then(|v| v.as_array()) {
                Some(a) if a.len() == 2 => format!(
                    "{}-{}",
                    num(&a[0]).map_or("?".into(), fmt_num),
                    num(&a[1]).map_or("?".into(), fmt_num)
                ),
                _ => "?".into(),
            },
            Check::Less | Check::Greater => format!(
                "{} {}{}",
                if self.check == Check::Less { "<" } else { ">" },
                self.factor
                    .filter(|&f| f != 1.0)
                    .map_or(String::new(), |f| format!("{f} x ")),
                self.than.clone().unwrap_or_default()
            ),
            Check::Near => format!(
                "within {}% of {}",
                self.tolerance.unwrap_or(15.0),
                self.than.clone().unwrap_or_default()
            ),
            Check::Lowest => format!("lowest of {} drives", self.among.len() + 1),
            Check::Highest => format!("highest of {} drives", self.among.len() + 1),
        }
    }
}

/// A figure of one drive's `figures`, with the spare-area ratios the claims use (`spare.X`
/// is `consistency25.X / consistency.X`).
pub fn figure(figures: &Figures, name: &str) -> Option<f64> {
    if let Some(rest) = name.strip_prefix("spare.") {
        let a = figures.get(&format!("consistency25.{rest}"))?;
        let b = figures.get(&format!("consistency.{rest}"))?;
        return Some(a / b);
    }
    figures.get(name).copied()
}

/// A published figure: a TOML float or integer.
pub fn number(v: &toml::Value) -> Option<f64> {
    v.as_float().or(v.as_integer().map(|i| i as f64))
}

/// "drive", "drive:metric", or ":metric" (the same drive, `drive`).
pub fn split_than(than: &str, drive: &str, metric: &str) -> (String, String) {
    match than.split_once(':') {
        Some(("", m)) => (drive.to_string(), m.to_string()),
        Some((d, m)) => (d.to_string(), m.to_string()),
        None => (than.to_string(), metric.to_string()),
    }
}

pub fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        "n/a".into()
    } else if v.abs() >= 100.0 {
        let s = format!("{:.0}", v);
        // Thousands separators for readability.
        let (sign, digits) = s.split_at(if s.starts_with('-') { 1 } else { 0 });
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        format!("{sign}{out}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// A claim's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub id: String,
    pub pass: bool,
    /// The simulated figures, in words.
    pub simulated: String,
    /// The drives (of the claim's `on`) that miss it: which of a claim shared by several
    /// presets the miss is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missed_by: Vec<String>,
}

/// Figures of every drive measured, by drive.
pub type Measured = BTreeMap<String, Figures>;

/// Check one claim against measured figures.
pub fn evaluate(c: &Claim, m: &Measured) -> Outcome {
    let get = |d: &str, metric: &str| figure(m.get(d)?, metric);
    let num = number;
    let published = c.published.as_ref().and_then(num);
    let tol = c.tolerance.unwrap_or(15.0) / 100.0;
    let factor = c.factor.unwrap_or(1.0);
    let mut missed_by = Vec::new();
    let mut words = Vec::new();
    for d in &c.on {
        let Some(a) = get(d, &c.metric) else {
            return Outcome {
                id: c.id.clone(),
                pass: false,
                simulated: format!("{d}: {} not measured", c.metric),
                missed_by: vec![d.clone()],
            };
        };
        let label = if c.on.len() > 1 {
            format!("{d} {}", fmt_num(a))
        } else {
            fmt_num(a)
        };
        let ok = match c.check {
            Check::Value => published.is_some_and(|p| (a - p).abs() <= tol * p.abs()),
            Check::AtMost => published.is_some_and(|p| a <= p),
            Check::AtLeast => published.is_some_and(|p| a >= p),
            Check::Between => c
                .published
                .as_ref()
                .and_then(|v| v.as_array())
                .and_then(|r| Some((num(r.first()?)?, num(r.get(1)?)?)))
                .is_some_and(|(lo, hi)| (lo..=hi).contains(&a)),
            Check::Less | Check::Greater | Check::Near => {
                let Some(than) = &c.than else {
                    return Outcome {
                        id: c.id.clone(),
                        pass: false,
                        simulated: "claim has no 'than'".into(),
                        missed_by: c.on.clone(),
                    };
                };
                let (td, tm) = split_than(than, d, &c.metric);
                let Some(b) = get(&td, &tm) else {
                    return Outcome {
                        id: c.id.clone(),
                        pass: false,
                        simulated: format!("{td}: {tm} not measured"),
                        missed_by: vec![d.clone()],
                    };
                };
                words.push(format!("{label} vs {}", fmt_num(b)));
                match c.check {
                    Check::Less => a < factor * b,
                    Check::Greater => a > factor * b,
                    _ => (a - b).abs() <= tol * b.abs(),
                }
            }
            Check::Lowest | Check::Highest => {
                let others: Vec<(String, f64)> = c
                    .among
                    .iter()
                    .filter(|o| *o != d)
                    .filter_map(|o| get(o, &c.metric).map(|v| (o.clone(), v)))
                    .collect();
                let best = if c.check == Check::Lowest {
                    others.iter().min_by(|x, y| x.1.total_cmp(&y.1))
                } else {
                    others.iter().max_by(|x, y| x.1.total_cmp(&y.1))
                };
                if let Some((o, v)) = best {
                    words.push(format!("{label}; next {o} {}", fmt_num(*v)));
                }
                others.len() == c.among.iter().filter(|o| *o != d).count()
                    && others.iter().all(|(_, v)| {
                        if c.check == Check::Lowest {
                            a < *v
                        } else {
                            a > *v
                        }
                    })
            }
        };
        if matches!(
            c.check,
            Check::Value | Check::AtMost | Check::AtLeast | Check::Between
        ) {
            words.push(label);
        }
        if !ok {
            missed_by.push(d.clone());
        }
    }
    Outcome {
        id: c.id.clone(),
        pass: missed_by.is_empty(),
        simulated: words.join("; "),
        missed_by,
    }
}

/// Why a preset's figure cannot be given ([`preset_figures`]).
#[derive(Debug, thiserror::Error)]
pub enum PresetFigureError {
    #[error("'{drive}' is not a preset: {source}")]
    NotAPreset {
        drive: String,
        #[source]
        source: sim::SimError,
    },
    #[error("{0}")]
    Measure(#[from] MeasureError),
    #[error("its measurement gives no {0}")]
    NoFigure(String),
}

/// Figures of presets (`drive`, a figure as the claims name them), each measurement run once
/// on a fresh simulated drive: the other drives of claims a twin is fitted to
/// ([`crate::fit::Target::from_claims`]). `heard` hears of each measurement before it runs.
pub fn preset_figures<'a>(
    mut heard: impl FnMut(&str, Measure) + 'a,
) -> impl FnMut(&str, &str) -> Result<f64, PresetFigureError> + 'a {
    let mut measured = Measured::new();
    move |drive: &str, name: &str| {
        if let Some(v) = measured.get(drive).and_then(|f| figure(f, name)) {
            return Ok(v);
        }
        sim::resolve(drive).map_err(|source| PresetFigureError::NotAPreset {
            drive: drive.to_string(),
            source,
        })?;
        for m in Measure::needed_by(name)? {
            heard(drive, m);
            let f = m.run(drive)?;
            measured.entry(drive.to_string()).or_default().extend(f);
        }
        measured
            .get(drive)
            .and_then(|f| figure(f, name))
            .ok_or_else(|| PresetFigureError::NoFigure(name.to_string()))
    }
}

/// Why the claims' measurements cannot be planned ([`plan`]).
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("claim {claim}: unknown preset '{drive}'")]
    UnknownPreset { claim: String, drive: String },
    #[error("claim {claim}: {source}")]
    Figure {
        claim: String,
        #[source]
        source: MeasureError,
    },
}

/// The measurements a set of claims needs: (drive, measure) pairs.
pub fn plan(claims: &[Claim]) -> Result<BTreeSet<(String, Measure)>, PlanError> {
    let mut jobs = BTreeSet::new();
    for c in claims {
        for (d, metric) in c.inputs() {
            if sim::resolve(&d).is_err() {
                return Err(PlanError::UnknownPreset {
                    claim: c.id.clone(),
                    drive: d,
                });
            }
            let needed = Measure::needed_by(&metric).map_err(|source| PlanError::Figure {
                claim: c.id.clone(),
                source,
            })?;
            for m in needed {
                jobs.insert((d.clone(), m));
            }
        }
    }
    Ok(jobs)
}

/// One measurement of [`measure_all`] that failed.
#[derive(Debug, thiserror::Error)]
#[error("{drive} {}: {error}", .measure.prefix())]
pub struct Failed {
    pub drive: String,
    pub measure: Measure,
    pub error: MeasureError,
}

/// The measurements of [`measure_all`] that failed, each said.
#[derive(Debug, thiserror::Error)]
#[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
pub struct MeasureAllError(pub Vec<Failed>);

/// Run every measurement on `threads` threads, longest first; `done` hears of each as it
/// finishes (drive, measure, its figures, wall seconds). A drive in `stand_ins` is measured as the spec
/// it maps to (a twin in its preset's place), its figures kept under its own name.
pub fn measure_all(
    jobs: &BTreeSet<(String, Measure)>,
    stand_ins: &BTreeMap<String, String>,
    threads: usize,
    done: &(dyn Fn(&str, Measure, &Figures, f64) + Sync),
) -> Result<Measured, MeasureAllError> {
    let mut queue: Vec<(String, Measure)> = jobs.iter().cloned().collect();
    // Pop from the end: cheapest first in the vector.
    queue.sort_by_key(|(d, m)| (m.cost(), d.clone()));
    let queue = Mutex::new(queue);
    let results: Mutex<Measured> = Mutex::new(BTreeMap::new());
    let errors: Mutex<Vec<Failed>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| loop {
                let Some((drive, m)) = queue.lock().expect("queue").pop() else {
                    return;
                };
                let start = std::time::Instant::now();
                let spec = stand_ins.get(&drive).unwrap_or(&drive);
                match m.run(spec) {
                    Ok(f) => {
                        done(&drive, m, &f, start.elapsed().as_secs_f64());
                        results
                            .lock()
                            .expect("results")
                            .entry(drive.clone())
                            .or_default()
                            .extend(f);
                    }
                    Err(error) => errors.lock().expect("errors").push(Failed {
                        drive: drive.clone(),
                        measure: m,
                        error,
                    }),
                }
            });
        }
    });
    let errors = errors.into_inner().expect("errors");
    if !errors.is_empty() {
        return Err(MeasureAllError(errors));
    }
    Ok(results.into_inner().expect("results"))
}

/// A fingerprint of the drives a claim reads: changes whenever one of their configurations
/// does, so a recorded outcome can be known to be stale.
pub fn fingerprint(c: &Claim) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for d in c.drives() {
        let text = sim::resolve(&d)
            .map(|cfg| serde_json::to_string(&cfg).unwrap_or_default())
            .unwrap_or_default();
        for b in d.bytes().chain(text.bytes()) {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// One recorded outcome of `scorecard.tsv`.
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    pub outcome: Outcome,
    pub fingerprint: String,
}

/// The committed scorecard, by claim id.
pub fn recorded() -> BTreeMap<String, Recorded> {
    parse_scorecard(SCORECARD_TSV)
}

pub fn parse_scorecard(text: &str) -> BTreeMap<String, Recorded> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut f = l.splitn(5, '\t');
            let id = f.next()?.to_string();
            let pass = f.next()? == "pass";
            let fingerprint = f.next()?.to_string();
            let simulated = f.next().unwrap_or("").to_string();
            let missed_by = f
                .next()
                .map(|m| {
                    m.split(',')
                        .filter(|d| !d.is_empty())
                        .map(String::from)
                        .collect()
                })
                .unwrap_or_default();
            Some((
                id.clone(),
                Recorded {
                    outcome: Outcome {
                        id,
                        pass,
                        simulated,
                        missed_by,
                    },
                    fingerprint,
                },
            ))
        })
        .collect()
}

/// The scorecard file for outcomes of `claims` (tab-separated: id, pass/miss, fingerprint,
/// simulated, and for a miss the drives that miss it).
pub fn format_scorecard(claims: &[Claim], outcomes: &[Outcome]) -> String {
    let mut s = String::from(
        "# Written by `ssdlab sim validate --record`: the outcome of every claim of claims.toml.\n# id\tpass|miss\tfingerprint of the presets it reads\tsimulated\tthe drives that miss it\n",
    );
    for (c, o) in claims.iter().zip(outcomes) {
        s.push_str(&format!(
            "{}\t{}\t{}\t{}",
            c.id,
            if o.pass { "pass" } else { "miss" },
            fingerprint(c),
            o.simulated.replace(['\t', '\n'], " ")
        ));
        if !o.missed_by.is_empty() {
            s.push_str(&format!("\t{}", o.missed_by.join(",")));
        }
        s.push('\n');
    }
    s
}
