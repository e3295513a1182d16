//! A simulated twin of a drive (`ssdlab sim fit`): search the simulator's parameters for
//! the drive that reproduces a drive's figures, and say how well it predicts the figures it
//! was not fitted to.
//!
//! A file per concept: `target` is what the fit aims at (a drive's results, or published
//! claims), `space` the keys searched and how far, `loss` how far a simulated drive is from
//! the target, `search` the optimiser, `screen` the cheap evaluations a large drive's search
//! ranks with, `prices` the energy model's watts and joules, fitted after the drive's
//! behaviour, `evaluations` the simulated drives measured (a pure function of a spec, cached
//! so a fit resumes), `reference` the drive a recovery test's results came from, `seeds` a
//! fit at several seeds and the figures their twins agree on, `report` what the fit found
//! and the twin's file.

mod evaluations;
mod loss;
mod open;
mod polish;
mod prices;
mod reference;
mod report;
mod same_drive;
mod screen;
mod search;
mod seeds;
mod space;
mod target;

use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::Instant;

pub use evaluations::{Evaluations, Measurer};
pub use loss::{error, figure, loss, residuals, twin_value, weights};
pub use open::{Alternative, Opened};
pub use prices::Spread;
pub use reference::Reference;
pub use report::{median_error, FitReport, ParamRow, StartRow, TermRow};
pub use screen::Screen;
pub use search::{Budget, Phase, Progress, KEPT_START, STOPPED};
pub use seeds::{agreement, fit_seeds, Agreement, SeedRun, AGREE, MAX_SEEDS};
pub use space::{known, param, params, Param, Reach, Space, DEFAULT_PARAMS};
pub use target::{Goal, OtherFigure, Target, Term, DECILES, DISTRIBUTION};

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
    /// The drive the target's results came from, when known (a recovery test's hidden
    /// preset): a preset, with overrides ([`Reference`]).
    pub reference: Option<String>,
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
    // Keys the start states: given, so never another value in the check of what is open.
    let stated: Vec<String> = keys.iter().map(|(k, _)| k.clone()).collect();
    let start_cfg = sim::resolve(&req.from).map_err(|e| e.to_string())?;
    // The reference's name and each of its keys' values.
    let reference_values = req
        .reference
        .as_deref()
        .map(|drive| reference::values(drive).map(|values| (drive, values)))
        .transpose()?;
    if let Some(cap) = req.target.capacity_bytes {
        if cap != start_cfg.capacity_bytes {
            set(&mut keys, "capacity", cap.to_string());
        }
    }
    let base = spec_of(&preset, &keys);
    let start_cfg = sim::resolve(&base).map_err(|e| e.to_string())?;
    let start = reference::values_of(&start_cfg);

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
    // The drive's behaviour is searched on the figures that do not read watts; its prices,
    // which change nothing it does, after it on those that do (`prices`).
    let (price_params, behaviour_params): (Vec<Param>, Vec<Param>) =
        req.params.iter().partition(|p| prices::is_price(p.key));
    let (priced_terms, behaviour_terms): (Vec<Term>, Vec<Term>) =
        fitted_terms.iter().cloned().partition(Term::is_priced);
    let space_for = |params: &[Param], terms: &[Term]| {
        let prefixes = prefixes(terms);
        let prefixes: Vec<&str> = prefixes.iter().map(String::as_str).collect();
        Space::new(params, &start, start_cfg.capacity_bytes, &prefixes)
    };
    let space = space_for(&behaviour_params, &behaviour_terms);
    let price_space = space_for(&price_params, &priced_terms);
    let left_out: Vec<String> = space
        .left_out
        .iter()
        .chain(&price_space.left_out)
        .cloned()
        .collect();
    let search_behaviour = !space.is_empty() && !behaviour_terms.is_empty();
    if !search_behaviour && price_space.is_empty() {
        return Err(format!("nothing to search: {}", left_out.join("; ")));
    }
    let fit_measures = measures(&behaviour_terms)?;
    let origin = space.origin();
    let screen = Screen::choose(&base, req.screen)?;
    if search_behaviour {
        least_budget(&space, &origin, screen, req.budget.evaluations)?;
    }
    let evaluations = Evaluations::open(req.cache.as_deref(), req.measurer.clone())?;
    // The start's keys with `overrides` set.
    let keys_with = |overrides: &[(String, String)]| {
        let mut k = keys.clone();
        for (key, value) in overrides {
            set(&mut k, key, value.clone());
        }
        k
    };
    let drive_at = |x: &[f64]| {
        // The start itself, not its keys restated: it is measured once.
        if x == origin.as_slice() {
            return base.clone();
        }
        spec_of(&preset, &keys_with(&space.overrides(x)))
    };
    let full_at = |x: &[f64]| evaluations.figures(&drive_at(x), &fit_measures);
    let found = if !search_behaviour {
        search::Found::start(origin.clone(), "only the prices were searched")
    } else if screen.is_on() {
        let screened_at = |x: &[f64]| evaluations.screened(&drive_at(x), &fit_measures, screen);
        let loss_of = |f: &Figures| loss(&behaviour_terms, f);
        let residuals_of = |f: &Figures| residuals(&behaviour_terms, f);
        screen::search(
            &space.starts(&origin),
            &space.held(),
            &space.smooth(),
            &|x| space.across(x),
            &full_at,
            &screened_at,
            &loss_of,
            &residuals_of,
            req.budget,
            progress,
        )?
    } else {
        let loss_at = |x: &[f64]| full_at(x).map_or(INVALID_LOSS, |f| loss(&behaviour_terms, &f));
        let mut found = search::from_starts(
            &space.starts(&origin),
            &space.held(),
            search::INITIAL_STEP,
            &[&loss_at],
            None,
            req.budget,
            progress,
        )?;
        // Across from the best, where the search cannot walk (as the screen's rounds do).
        let mut best_loss = loss_at(&found.best);
        for other in space.across(&found.best) {
            found.evaluations += 1;
            let across = loss_at(&other);
            if across < best_loss {
                (found.best, best_loss) = (other, across);
                found.history.push((found.evaluations, across));
            }
        }
        let polished = polish::polish(
            &found.best,
            &space.smooth(),
            &|x| full_at(x).ok().map(|f| residuals(&behaviour_terms, &f)),
            polish::budget(req.budget.evaluations),
            &search::pool(req.budget.jobs)?,
        );
        let found = polish::keep_if_better(found, polished, &loss_at);
        // The screen's rounds keep the start until a drive beats it; a search here may not.
        search::no_worse_than_start(found, &origin, &loss_at)
    };

    // The twin's behaviour, then its prices.
    let behaviour_spec = drive_at(&found.best);
    let behaviour = if search_behaviour {
        space.overrides(&found.best)
    } else {
        vec![]
    };
    let mut twin_values = behaviour.clone();
    let mut price_runs = 0;
    let mut price_spreads = vec![];
    if !price_space.is_empty() {
        let priced_at = |y: &[f64]| {
            spec_of(
                &preset,
                &keys_with(&[&behaviour[..], &price_space.overrides(y)].concat()),
            )
        };
        let price_measures = measures(&priced_terms)?;
        let held_priced: Vec<Term> = held_terms
            .iter()
            .filter(|t| t.is_priced())
            .cloned()
            .collect();
        let priced = prices::fit(
            &price_space,
            &|y| evaluations.figures(&priced_at(y), &price_measures),
            &priced_terms,
            &held_priced,
            req.budget.seed,
            req.budget.jobs,
        )?;
        twin_values.extend(price_space.overrides(&priced.best));
        price_runs = priced.runs;
        price_spreads = priced.spreads;
    }
    let twin_spec = if twin_values == behaviour {
        behaviour_spec.clone()
    } else {
        spec_of(&preset, &keys_with(&twin_values))
    };

    // The twin and the start, on every measurement, fitted and held out. Prices change
    // nothing a drive does, so the twin's figures but those in watts are its behaviour's,
    // measured already.
    let all_measures = measures(&req.target.terms)?;
    let (all_priced, _): (Vec<Term>, Vec<Term>) =
        req.target.terms.iter().cloned().partition(Term::is_priced);
    let twin = || -> Result<Figures, String> {
        let mut f = evaluations.figures(&behaviour_spec, &all_measures)?;
        if twin_spec != behaviour_spec {
            f.extend(evaluations.figures(&twin_spec, &measures(&all_priced)?)?);
        }
        Ok(f)
    };
    let twin_and_start = || -> Result<(Figures, Figures), String> {
        if behaviour_spec == base {
            // The start is the twin's behaviour: measured once.
            let before = evaluations.figures(&base, &all_measures)?;
            Ok((twin()?, before))
        } else {
            let (twin, before) = rayon::join(twin, || evaluations.figures(&base, &all_measures));
            Ok((twin?, before?))
        }
    };
    // The reference, as the search could have found it: its values of the keys searched.
    let reference = || {
        reference_values.as_ref().map(|(drive, values)| {
            let mut searched = price_space.overrides(&price_space.origin());
            if search_behaviour {
                searched.extend(space.values(&origin));
            }
            let spec = spec_of(&preset, &keys_with(&reference::project(&searched, values)));
            let unsearched = reference::unsearched(&base, &start, values, &searched);
            let outside = reference::outside(&[&space, &price_space], values, &searched, &spec);
            // A drive the simulator refuses is reported, not the fit's failure.
            let figures = evaluations.figures(&spec, &all_measures);
            let r = Reference {
                drive: drive.to_string(),
                spec,
                loss: figures.as_ref().ok().map(|f| loss(&fitted_terms, f)),
                refused: figures.as_ref().err().cloned(),
                unsearched,
                outside,
            };
            (r, figures.ok())
        })
    };
    // Beside the twin and the start, so its measurements share the threads with theirs
    // rather than wait for the last of them.
    let (measured, reference) = rayon::join(twin_and_start, reference);
    let (twin, before) = measured?;
    // The keys not searched, each at its other values on the twin (with no behaviour
    // searched, all of it is the start's, open without a check).
    let searched = [space.keys(), price_space.keys()].concat();
    let spec_with = |overrides: &[(String, String)]| {
        spec_of(&preset, &keys_with(&[&twin_values[..], overrides].concat()))
    };
    let twin_cfg = sim::resolve(&twin_spec).map_err(|e| e.to_string())?;
    let open = if !search_behaviour {
        open::Check::default()
    } else {
        open::check(
            &open::Twin {
                config: &twin_cfg,
                spec_with: &spec_with,
                figures: &twin,
                loss: loss(&fitted_terms, &twin),
            },
            &req.params,
            &searched,
            &stated,
            &evaluations,
            screen,
            &all_measures,
            &fitted_terms,
            &req.target.terms,
            &search::pool(req.budget.jobs)?,
            progress,
        )?
    };
    let rows = |terms: &[Term]| -> Vec<TermRow> {
        let w = weights(terms);
        let reference = reference.as_ref().and_then(|(_, f)| f.as_ref());
        terms
            .iter()
            .zip(w)
            .map(|(t, weight)| TermRow {
                open: open.opened.get(&t.figure).cloned(),
                ..TermRow::new(t, weight, &before, &twin, reference)
            })
            .collect()
    };
    let fitted_keys: BTreeSet<String> = twin_values.iter().map(|(k, _)| k.clone()).collect();
    // Every key searched, for the report: the twin's values with a cell that is the start's,
    // which its spec leaves out, then its prices.
    let searched_values = if search_behaviour {
        space.values(&found.best)
    } else {
        vec![]
    };
    let params = searched_values
        .iter()
        .chain(&twin_values[behaviour.len()..])
        .map(|(key, value)| ParamRow {
            key: key.clone(),
            start: start.get(key).cloned().unwrap_or_default(),
            twin: value.clone(),
            reference: reference_values
                .as_ref()
                .and_then(|(_, r)| r.get(key).cloned()),
            seeds: vec![],
        })
        .collect();
    for (key, value) in twin_values {
        set(&mut keys, &key, value);
    }
    let (fitted, held_out) = (rows(&fitted_terms), rows(&held_terms));
    let report = FitReport {
        drive: req.target.drive.clone(),
        from: req.from.clone(),
        twin: spec_of(&preset, &keys),
        seed: req.budget.seed,
        params,
        left_out,
        skipped: req.target.skipped.clone(),
        loss_start: loss(&fitted_terms, &before),
        loss_twin: loss(&fitted_terms, &twin),
        reference: reference.map(|(r, _)| r),
        fitted,
        held_out,
        history: found.history,
        screen: screen.factor,
        confirmed: found.confirmed,
        finalists: found.finalists,
        starts: found
            .starts
            .iter()
            .enumerate()
            .map(|(round, starts)| {
                // The first round's starts are told apart by the outer choices, later
                // rounds' by the keys across ([`screen::search`]).
                let keys = |x: &[f64]| match round {
                    0 => space.start_keys(x),
                    _ => space.across_keys(x),
                };
                starts
                    .iter()
                    .map(|start| StartRow {
                        keys: keys(&start.origin),
                        loss: start.loss,
                        went_on: start.went_on,
                    })
                    .filter(|row| !row.keys.is_empty())
                    .collect()
            })
            .collect(),
        price_runs,
        price_spreads,
        alternatives: open.alternatives,
        evaluations: found.evaluations,
        invalid: evaluations.invalid(),
        stopped: found.stopped,
        wall_s: started.elapsed().as_secs_f64(),
        time: evaluations.time_spent(),
        seeds: vec![],
    };
    Ok(Fit {
        preset,
        keys,
        fitted: fitted_keys,
        report,
    })
}

/// Refuse a budget below what the search measures anyway (a first generation from each of
/// its first round's starts), naming the least that is honoured.
fn least_budget(
    space: &Space,
    origin: &[f64],
    screen: Screen,
    evaluations: usize,
) -> Result<(), String> {
    let held = space.held();
    let free = (0..origin.len())
        .filter(|&i| !held.get(i).copied().unwrap_or(false))
        .count();
    let mut starts = space.starts(origin).len();
    if screen.is_on() {
        starts = screen::first_round_starts(starts);
    }
    let least = search::first_generations(starts, free);
    if evaluations >= least {
        return Ok(());
    }
    Err(format!(
        "--evals {evaluations}: the search measures at least {least} drives (a first \
         generation of {} from each of its {starts} start(s), for the {free} coordinates \
         searched): give --evals {least} or more",
        least / starts
    ))
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
