//! A simulated twin of a drive (`ssdlab sim fit`): search the simulator's parameters for
//! the drive that reproduces a drive's figures, and say how well it predicts the figures it
//! was not fitted to.
//!
//! A file per concept: `target` is what the fit aims at (a drive's results, or published
//! claims), `space` the keys searched and how far, `loss` how far a simulated drive is from
//! the target, `search` the optimiser, `screen` the cheap evaluations a large drive's search
//! ranks with, `evaluations` the simulated drives measured (a pure function of a spec, cached
//! so a fit resumes), `report` what the fit found and the twin's file.

mod evaluations;
mod loss;
mod report;
mod screen;
mod search;
mod space;
mod target;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::Instant;

pub use evaluations::{Evaluations, Measurer};
pub use loss::{error, figure, loss, twin_value, weights};
pub use report::{median_error, FitReport, ParamRow, TermRow};
pub use screen::Screen;
pub use search::{Budget, Progress, STOPPED};
pub use space::{param, params, Param, Reach, Space, DEFAULT_PARAMS};
pub use target::{Goal, Target, Term, DECILES, DISTRIBUTION};

use crate::fidelity::{Figures, Measure};

/// The loss of a drive the simulator refuses (a layout that does not fit): worse than any
/// drive it can run, so the search leaves it.
const INVALID_LOSS: f64 = 10.0;

/// What to fit.
#[derive(Clone)]
pub struct Request {
    /// The drive to start from (what follows `sim:`: a preset, with overrides).
    pub from: String,
    pub target: Target,
    /// Measurements (prefixes: `heavy`, `trim`, `power`) or figures (the beginning of their
    /// names: `power.seq`) kept out of the fit and predicted.
    pub hold_out: Vec<String>,
    pub params: Vec<Param>,
    pub budget: Budget,
    /// The screen's factor ([`Screen`]); by the capacity when not given, 1 for none.
    pub screen: Option<u32>,
    /// Where evaluations are kept (JSON lines), so a stopped fit resumes where it was.
    pub cache: Option<PathBuf>,
    /// Where drives are measured: on `budget.jobs` threads here when none; elsewhere, the
    /// jobs are the drives in flight.
    pub measurer: Option<Measurer>,
}

/// A fit's outcome: the twin's keys and the report.
#[derive(Clone, Debug)]
pub struct Fit {
    /// The preset the twin starts from.
    pub preset: String,
    /// Its keys, in order: the start's own overrides, the capacity, the fitted keys.
    pub keys: Vec<(String, String)>,
    /// The keys the search set.
    pub fitted: BTreeSet<String>,
    pub report: FitReport,
}

/// The measurements `terms` read.
fn measures(terms: &[Term]) -> Result<Vec<Measure>, String> {
    let mut all = BTreeSet::new();
    for t in terms {
        let figure = t.figure.replace(DISTRIBUTION, DECILES[0]);
        all.extend(Measure::needed_by(&figure)?);
        if let Goal::Than { figure, .. } = &t.goal {
            all.extend(Measure::needed_by(figure)?);
        }
    }
    Ok(all.into_iter().collect())
}

/// Fit: search from `req.from` for the drive whose figures come closest to the target's.
/// `progress`, after each generation, may stop it: the fit then returns [`STOPPED`].
pub fn fit(
    req: &Request,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Fit, String> {
    let started = Instant::now();
    let (preset, mut keys) = split_spec(&req.from)?;
    let start_cfg = sim::resolve(&req.from).map_err(|e| e.to_string())?;
    if let Some(cap) = req.target.capacity_bytes {
        if cap != start_cfg.capacity_bytes {
            set(&mut keys, "capacity", cap.to_string());
        }
    }
    let base = spec_of(&preset, &keys);
    let start_cfg = sim::resolve(&base).map_err(|e| e.to_string())?;
    // Each key's value as the start sets it: the last word of its sources.
    let start: BTreeMap<String, String> = start_cfg
        .sources
        .iter()
        .map(|(k, v, _)| (k.clone(), v.clone()))
        .collect();

    let held = |t: &Term| req.hold_out.iter().any(|h| t.is_held_by(h));
    let (held_terms, fitted_terms): (Vec<Term>, Vec<Term>) =
        req.target.terms.iter().cloned().partition(held);
    if fitted_terms.is_empty() {
        return Err("every figure of the target is held out: hold out fewer measurements".into());
    }
    for h in &req.hold_out {
        if !held_terms.iter().any(|t| t.is_held_by(h)) {
            return Err(format!(
                "--hold-out {h}: the target has no {h} figure (it has {}; `power.seq` holds out the figures whose names begin so)",
                prefixes(&req.target.terms).join(", ")
            ));
        }
    }
    let fitted_prefixes = prefixes(&fitted_terms);
    let space = Space::new(
        &req.params,
        &start,
        start_cfg.capacity_bytes,
        &fitted_prefixes
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    if space.is_empty() {
        return Err(format!("nothing to search: {}", space.left_out.join("; ")));
    }
    let fit_measures = measures(&fitted_terms)?;
    let evaluations = Evaluations::open(req.cache.as_deref(), req.measurer.clone())?;
    let origin = space.origin();
    let drive_at = |x: &[f64]| {
        // The start itself, not its keys restated: it is measured once.
        if x == origin.as_slice() {
            return base.clone();
        }
        let mut k = keys.clone();
        for (key, value) in space.overrides(x) {
            set(&mut k, &key, value);
        }
        spec_of(&preset, &k)
    };
    let screen = Screen::choose(&base, req.screen)?;
    let full_at = |x: &[f64]| evaluations.figures(&drive_at(x), &fit_measures);
    let found = if screen.is_on() {
        let screened_at = |x: &[f64]| evaluations.screened(&drive_at(x), &fit_measures, screen);
        let loss_of = |f: &Figures| loss(&fitted_terms, f);
        screen::search(
            &origin,
            &full_at,
            &screened_at,
            &loss_of,
            req.budget,
            progress,
        )?
    } else {
        let loss_at = |x: &[f64]| full_at(x).map_or(INVALID_LOSS, |f| loss(&fitted_terms, &f));
        search::minimise(
            &origin,
            search::INITIAL_STEP,
            &loss_at,
            req.budget,
            progress,
        )?
    };

    // The twin and the start, on every measurement, fitted and held out.
    let all_measures = measures(&req.target.terms)?;
    let twin_spec = drive_at(&found.best);
    let (twin, before) = rayon::join(
        || evaluations.figures(&twin_spec, &all_measures),
        || evaluations.figures(&base, &all_measures),
    );
    let (twin, before) = (twin?, before?);
    let rows = |terms: &[Term]| -> Vec<TermRow> {
        let w = weights(terms);
        terms
            .iter()
            .zip(w)
            .map(|(t, weight)| TermRow::new(t, weight, &before, &twin))
            .collect()
    };
    let fitted_keys: BTreeSet<String> = space.keys().iter().map(|k| k.to_string()).collect();
    let twin_values = space.overrides(&found.best);
    let params = space
        .keys()
        .iter()
        .zip(&twin_values)
        .map(|(key, (_, value))| ParamRow {
            key: key.to_string(),
            start: start.get(*key).cloned().unwrap_or_default(),
            twin: value.clone(),
        })
        .collect();
    for (key, value) in twin_values {
        set(&mut keys, &key, value);
    }
    let report = FitReport {
        drive: req.target.drive.clone(),
        from: req.from.clone(),
        twin: spec_of(&preset, &keys),
        seed: req.budget.seed,
        params,
        left_out: space.left_out.clone(),
        skipped: req.target.skipped.clone(),
        loss_start: loss(&fitted_terms, &before),
        loss_twin: loss(&fitted_terms, &twin),
        fitted: rows(&fitted_terms),
        held_out: rows(&held_terms),
        history: found.history,
        screen: screen.factor,
        confirmed: found.confirmed,
        finalists: found.finalists,
        evaluations: found.evaluations,
        invalid: evaluations.invalid(),
        stopped: found.stopped,
        wall_s: started.elapsed().as_secs_f64(),
    };
    Ok(Fit {
        preset,
        keys,
        fitted: fitted_keys,
        report,
    })
}

/// The measurement prefixes of `terms`, each once.
fn prefixes(terms: &[Term]) -> Vec<String> {
    let set: BTreeSet<&str> = terms.iter().map(Term::prefix).collect();
    set.into_iter().map(String::from).collect()
}

/// A spec's preset and its overrides; a fit starts from a preset, not a file.
fn split_spec(spec: &str) -> Result<(String, Vec<(String, String)>), String> {
    let mut parts = spec.split(',').map(str::trim).filter(|p| !p.is_empty());
    let first = parts.next().unwrap_or("default");
    if first.to_ascii_lowercase().ends_with(".toml") {
        return Err(format!(
            "--from {first}: a fit starts from a preset (with overrides), not a file: name the preset the file starts from, with its keys as overrides"
        ));
    }
    let (preset, mut keys) = if first.contains('=') {
        ("default".to_string(), vec![first])
    } else {
        (first.to_string(), vec![])
    };
    keys.extend(parts);
    let keys = keys
        .into_iter()
        .map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| format!("--from: '{kv}' is not key=value"))
        })
        .collect::<Result<_, _>>()?;
    Ok((preset, keys))
}

/// Set `key` in an ordered list of keys, replacing it where it is.
fn set(keys: &mut Vec<(String, String)>, key: &str, value: String) {
    match keys.iter_mut().find(|(k, _)| k == key) {
        Some(kv) => kv.1 = value,
        None => keys.push((key.to_string(), value)),
    }
}

fn spec_of(preset: &str, keys: &[(String, String)]) -> String {
    std::iter::once(preset.to_string())
        .chain(keys.iter().map(|(k, v)| format!("{k}={v}")))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spec_splits_into_its_preset_and_keys() {
        let (p, k) = split_spec("840-evo-250,op=25%,gc=fifo").unwrap();
        assert_eq!(p, "840-evo-250");
        assert_eq!(
            k,
            [("op".into(), "25%".into()), ("gc".into(), "fifo".into())]
        );
        assert_eq!(split_spec("op=9%").unwrap().0, "default");
        assert!(split_spec("twin.toml").unwrap_err().contains("not a file"));
    }
}
