//! Why a fit, or a step of it, fails: the request refused before it searches, the simulator
//! refusing a drive, a measurement failing, the evaluations file, or the search itself. Each
//! message is the one the command line prints (its tests, and the Python package's, match
//! on them); a refusal that names an argument is an [`ArgError`], which each face names its
//! own way.

use std::path::PathBuf;

use super::arg::{Arg, Naming};
use super::seeds::MAX_SEEDS;
use crate::fidelity::{Measure, MeasureError};

#[derive(Debug, thiserror::Error)]
pub enum FitError {
    /// An argument refused: the message names it (see [`FitError::named`]).
    #[error(transparent)]
    Arg(#[from] ArgError),
    /// The simulator refused a spec: the start, the twin, a screened drive.
    #[error("{0}")]
    Spec(#[from] sim::SimError),
    /// A key's value does not read as its quantities.
    #[error("{0}")]
    Key(#[from] sim::KeyError),
    /// A measurement of a drive failed.
    #[error("{0}")]
    Measure(#[from] MeasureError),
    #[error("every figure of the target is held out: hold out fewer measurements")]
    AllHeldOut,
    /// Every key asked for was left out of the space, each for its reason.
    #[error("nothing to search: {}", .0.join("; "))]
    NothingToSearch(Vec<String>),
    #[error("{0} seeds: give 1 to {MAX_SEEDS} (each is a whole search)")]
    Seeds(u64),
    #[error("a fit at several seeds needs at least one")]
    NoSeeds,
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

impl FitError {
    /// The message, with the arguments it names said as `n` says them (Display: flags).
    pub fn named(&self, n: Naming) -> String {
        match self {
            FitError::Arg(e) => e.named(n),
            e => e.to_string(),
        }
    }
}

/// A fit's argument refused, the message naming it; Display names the command line's flags.
#[derive(Debug)]
pub enum ArgError {
    Reference {
        drive: String,
        source: sim::SimError,
    },
    Screen {
        factor: u32,
        source: sim::SimError,
    },
    /// A start that is a file, not a preset.
    FromFile(String),
    /// A start's override that is not key=value.
    NotKeyValue(String),
    NoHeldFigure {
        held: String,
        prefixes: Vec<String>,
    },
    TooFewEvaluations {
        evaluations: usize,
        least: usize,
        starts: usize,
        free: usize,
    },
    /// A file beside the twin that is not the evaluations a fit writes.
    NotEvaluations {
        path: PathBuf,
        line: usize,
    },
}

impl ArgError {
    /// The message, with the arguments it names said as `n` says them.
    pub fn named(&self, n: Naming) -> String {
        match self {
            ArgError::Reference { drive, source } => {
                format!("{}: {source}", n.with(Arg::Reference, drive))
            }
            ArgError::Screen { factor, source } => format!(
                "{}: the start's drive screened {factor} times smaller cannot be built \
                 ({source}): give a smaller factor, or {} for none",
                n.with(Arg::Screen, factor),
                n.with(Arg::Screen, 1)
            ),
            ArgError::FromFile(file) => format!(
                "{}: a fit starts from a preset (with overrides), not a file: name the preset \
                 the file starts from, with its keys as overrides",
                n.with(Arg::From, file)
            ),
            ArgError::NotKeyValue(kv) => format!("{}: '{kv}' is not key=value", n.of(Arg::From)),
            ArgError::NoHeldFigure { held, prefixes } => format!(
                "{}: the target has no {held} figure (it has {}; `power.seq` holds out the \
                 figures whose names begin so)",
                n.with(Arg::HoldOut, held),
                prefixes.join(", ")
            ),
            ArgError::TooFewEvaluations {
                evaluations,
                least,
                starts,
                free,
            } => format!(
                "{}: the search measures at least {least} drives (a first generation of {} \
                 from each of its {starts} start(s), for the {free} coordinates searched): \
                 give {} or more",
                n.with(Arg::Evals, evaluations),
                least / starts,
                n.with(Arg::Evals, least)
            ),
            ArgError::NotEvaluations { path, line } => format!(
                "{}: line {line} is not text: this file should hold the evaluations a fit wrote \
                 beside its twin (JSON lines, one drive each), from which it resumes; move it \
                 away, or give the twin another name with {}",
                path.display(),
                n.of(Arg::Output)
            ),
        }
    }
}

impl std::fmt::Display for ArgError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.named(Naming::Flags))
    }
}

impl std::error::Error for ArgError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ArgError::Reference { source, .. } | ArgError::Screen { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// How a drive was screened, after its measurement's name: nothing at full length.
fn screened(factor: u32) -> String {
    match factor {
        1 => String::new(),
        f => format!(" screened to 1/{f}"),
    }
}
