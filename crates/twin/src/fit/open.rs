//! What the results leave open. A key the fit did not search stays where its start put it,
//! in every seed, so neither the fitted figures nor the seeds' spread can say whether the
//! drive has it otherwise (BENCHMARKS #27: the mSATA 840 EVO's twins at two seeds agreed on
//! whole TRIM, the start's, and missed its TRIM after the torture by 60%). So the twin is
//! measured again with each such key at each other value within its reach, one at a time;
//! where that drive fits the fitted figures as well as the twin, a figure it moves is one
//! the results leave open, and the key is named.
//!
//! One key at a time and nothing searched again: a mechanism the fitted figures reject alone
//! might fit with the other keys moved to make up for it, so this finds what is surely open,
//! not all that is.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use rayon::prelude::*;
use serde::Serialize;

use super::evaluations::Evaluations;
use super::loss::{loss, twin_value};
// An alternative fits the fitted figures as well as the twin by the prices' own rule.
use super::prices::AS_WELL;
use super::reference::values_of;
use super::screen::{Correction, Screen};
use super::search::{Phase, Progress};
use super::seeds::{spread, AGREE};
use super::space::{self, Param, Space};
use super::target::Term;
use super::FitError;
use crate::fidelity::{Figures, Measure};

/// A figure an alternative changes by more than this share of the drive's is moved: the
/// seeds' agreement ([`AGREE`]), so a figure is pinned when the seeds' twins agree on it and
/// no key not searched moves it, both by one rule.
const MOVED: f64 = AGREE;

/// The twin with one key not searched set otherwise.
#[derive(Clone, Debug, Serialize)]
pub struct Alternative {
    /// `key=value`, as a spec writes it (TRIM's two keys together).
    pub drive: String,
    /// Its loss on the fitted figures; none when the simulator refused it.
    pub loss: Option<f64>,
    pub refused: Option<String>,
    /// Whether it fits the fitted figures as well as the twin ([`AS_WELL`]).
    pub as_well: bool,
    /// The figures it moves, each by how much as a share of the drive's, largest first.
    pub moves: Vec<(String, f64)>,
}

/// A figure an alternative that fits as well moves: the one that moves it most, and how far.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Opened {
    pub by: String,
    pub change: f64,
}

/// What the check found.
#[derive(Default)]
pub struct Check {
    pub alternatives: Vec<Alternative>,
    /// Per figure, the largest move of an alternative that fits as well.
    pub opened: BTreeMap<String, Opened>,
}

/// A drive as a spec: the twin with these `key=value` overrides.
pub type SpecWith<'a> = &'a (dyn Fn(&[(String, String)]) -> String + Sync);

/// What the check needs of a fit.
pub struct Twin<'a> {
    pub config: &'a sim::Config,
    /// The twin with overrides, as a spec.
    pub spec_with: SpecWith<'a>,
    /// Its figures at full length, and its loss on the fitted terms.
    pub figures: &'a Figures,
    pub loss: f64,
}

/// Measure the twin with each key the fit was `asked` to search or `--params` may add that
/// it did not (`searched`), nor `stated` in the start ([`space::unsearched`]), at its other
/// values, through `screen` (corrected to full length at the twin), on
/// `measures`; `fitted` decides which fit as well, `terms` (fitted and held out) are the
/// figures whose moves are kept.
#[allow(clippy::too_many_arguments)]
pub fn check(
    twin: &Twin,
    asked: &[Param],
    searched: &[&str],
    stated: &[String],
    evaluations: &Evaluations,
    screen: Screen,
    measures: &[Measure],
    fitted: &[Term],
    terms: &[Term],
    pool: &rayon::ThreadPool,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Check, FitError> {
    let cached = twin.config.slc.bytes > 0;
    let params: Vec<_> = space::unsearched(asked, searched)
        .into_iter()
        .filter(|p| !stated.iter().any(|k| k == p.key))
        // A cache's policy means nothing without a cache.
        .filter(|p| cached || !p.key.starts_with("slc_"))
        .collect();
    let prefixes: Vec<&str> = terms.iter().map(Term::prefix).collect();
    let values = values_of(twin.config);
    let others = Space::new(&params, &values, twin.config.capacity_bytes, &prefixes).others();
    if others.is_empty() {
        return Ok(Check::default());
    }
    let told = progress(&Progress {
        generation: 0,
        evaluations: 0,
        budget: others.len(),
        best_loss: twin.loss,
        evaluations_per_min: 0.0,
        eta_s: 0.0,
        phase: Phase::Open,
    });
    if told.is_break() {
        return Err(FitError::Stopped);
    }
    // A twin the screen cannot shrink (the search's screened drive was another) is tried
    // at full length, where its figures are known.
    let (screen, correction) = match evaluations.screened(&(twin.spec_with)(&[]), measures, screen)
    {
        Ok(screened) => (screen, Correction::between(twin.figures, &screened)),
        Err(_) => (Screen { factor: 1 }, Correction::default()),
    };
    let alternatives: Vec<Alternative> = pool.install(|| {
        others
            .par_iter()
            .map(|overrides| {
                let drive = overrides
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(",");
                match evaluations.screened(&(twin.spec_with)(overrides), measures, screen) {
                    Ok(f) => {
                        let f = correction.apply(&f);
                        let loss = loss(fitted, &f);
                        let mut moves: Vec<(String, f64)> = terms
                            .iter()
                            .filter_map(|t| {
                                let drive = t.goal.value();
                                let pair = [twin_value(t, twin.figures), twin_value(t, &f)];
                                let change = spread(drive, &pair)?;
                                (change > MOVED).then(|| (t.figure.clone(), change))
                            })
                            .collect();
                        moves.sort_by(|a, b| b.1.total_cmp(&a.1));
                        Alternative {
                            drive,
                            loss: Some(loss),
                            refused: None,
                            as_well: loss <= twin.loss + AS_WELL,
                            moves,
                        }
                    }
                    Err(e) => Alternative {
                        drive,
                        loss: None,
                        refused: Some(e.to_string()),
                        as_well: false,
                        moves: vec![],
                    },
                }
            })
            .collect()
    });
    let mut opened: BTreeMap<String, Opened> = BTreeMap::new();
    for a in alternatives.iter().filter(|a| a.as_well) {
        for (figure, change) in &a.moves {
            let bigger = opened.get(figure).is_none_or(|o| *change > o.change);
            if bigger {
                opened.insert(
                    figure.clone(),
                    Opened {
                        by: a.drive.clone(),
                        change: *change,
                    },
                );
            }
        }
    }
    Ok(Check {
        alternatives,
        opened,
    })
}
