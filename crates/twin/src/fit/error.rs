//! Why a fit, or a step of it, fails: the request refused before it searches, the simulator
//! refusing a drive, a measurement failing, the evaluations file, or the search itself. Each
//! message is the one the command line prints (its tests, and the Python package's, match
//! on them).

use std::path::PathBuf;

use super::seeds::MAX_SEEDS;
use crate::fidelity::{Measure, MeasureError};

#[derive(Debug, thiserror::Error)]
pub enum FitError {
    /// The simulator refused a spec: the start, the twin, a screened drive.
    #[error("{0}")]
    Spec(#[from] sim::SimError),
    /// A key's value does not read as its quantities.
    #[error("{0}")]
    Key(#[from] sim::KeyError),
    /// A measurement of a drive failed.
    #[error("{0}")]
    Measure(#[from] MeasureError),
    #[error("--reference {drive}: {source}")]
    Reference {
        drive: String,
        #[source]
        source: sim::SimError,
    },
    #[error(
        "--screen {factor}: the start's drive screened {factor} times smaller cannot be built ({source}): give a smaller factor, or --screen 1 for none"
    )]
    Screen {
        factor: u32,
        #[source]
        source: sim::SimError,
    },
    #[error(
        "--from {0}: a fit starts from a preset (with overrides), not a file: name the preset the file starts from, with its keys as overrides"
    )]
    FromFile(String),
    #[error("--from: '{0}' is not key=value")]
    NotKeyValue(String),
    #[error("every figure of the target is held out: hold out fewer measurements")]
    AllHeldOut,
    #[error(
        "--hold-out {held}: the target has no {held} figure (it has {}; `power.seq` holds out the figures whose names begin so)",
        .prefixes.join(", ")
    )]
    NoHeldFigure { held: String, prefixes: Vec<String> },
    /// Every key asked for was left out of the space, each for its reason.
    #[error("nothing to search: {}", .0.join("; "))]
    NothingToSearch(Vec<String>),
    #[error(
        "--evals {evaluations}: the search measures at least {least} drives (a first \
         generation of {} from each of its {starts} start(s), for the {free} coordinates \
         searched): give --evals {least} or more",
        .least / .starts
    )]
    TooFewEvaluations {
        evaluations: usize,
        least: usize,
        starts: usize,
        free: usize,
    },
    #[error("{0} seeds: give 1 to {MAX_SEEDS} (each is a whole search)")]
    Seeds(u64),
    #[error("a fit at several seeds needs at least one")]
    NoSeeds,
    /// A file beside the twin that is not the evaluations a fit writes.
    #[error(
        "{}: line {line} is not text: this file should hold the evaluations a fit wrote beside \
         its twin (JSON lines, one drive each), from which it resumes; move it away, or give \
         the twin another name with -o",
        .path.display()
    )]
    NotEvaluations { path: PathBuf, line: usize },
    /// The evaluations file cannot be read or opened.
    #[error("{}: {source}", .path.display())]
    EvaluationsFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The evaluations file was written by a build that measures `spec` otherwise (`what`
    /// says how).
    #[error(
        "{}: written by an ssdlab that measures differently: `{}`{} of {spec} gave \
         {what}. Resume with the ssdlab that wrote it, or delete the file to fit from nothing",
        .path.display(),
        .measure.prefix(),
        screened(*.screen)
    )]
    OtherBuild {
        path: PathBuf,
        measure: Measure,
        spec: String,
        screen: u32,
        what: String,
    },
    #[error("{0}")]
    EvaluationLine(#[from] serde_json::Error),
    #[error("cannot keep an evaluation: {0}")]
    Keep(#[source] std::io::Error),
    #[error("cannot start {jobs} search threads: {source}")]
    Threads {
        jobs: usize,
        #[source]
        source: rayon::ThreadPoolBuildError,
    },
    #[error("the search cannot start: {0:?}")]
    SearchStart(cmaes::options::InvalidOptionsError),
    /// Stopped by its caller (progress gave `ControlFlow::Break`); the drives it measured
    /// are kept, so the same fit resumes.
    #[error("the fit was stopped")]
    Stopped,
    #[error("a search needs a start")]
    NoStart,
    #[error("{losses} losses for {starts} starts")]
    Losses { losses: usize, starts: usize },
    #[error("the search stopped before evaluating any drive")]
    NothingEvaluated,
    #[error("{key}={text}: no value")]
    NoValue { key: String, text: String },
    /// A price whose probe did not move its value.
    #[error("{0}: moving it did not change it")]
    PriceUnmoved(String),
}

/// How a drive was screened, after its measurement's name: nothing at full length.
fn screened(factor: u32) -> String {
    match factor {
        1 => String::new(),
        f => format!(" screened to 1/{f}"),
    }
}
