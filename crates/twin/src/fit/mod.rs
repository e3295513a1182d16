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

mod arg;
mod error;
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

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::Instant;

pub use arg::{Arg, Naming};
pub use error::{ArgError, FitError};
pub use evaluations::{Evaluations, Measurer};
pub use loss::{error, figure, loss, residuals, twin_value, weights};
pub use open::{Alternative, Opened};
pub use prices::Spread;
pub use reference::Reference;
pub use report::{median_error, FitReport, ParamRow, StartRow, TermRow};
pub use screen::Screen;
pub use search::{Budget, Phase, Progress, KEPT_START};
pub use seeds::{agreement, fit_seeds, Agreement, SeedRun, AGREE, MAX_SEEDS};
pub use space::{known, param, params, Param, ParamError, Reach, Space, DEFAULT_PARAMS};
pub use target::{Goal, OtherFigure, Target, TargetError, Term, DECILES, DISTRIBUTION};

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
fn measures(terms: &[Term]) -> Result<Vec<Measure>, FitError> {
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
/// `progress`, after each generation, may stop it: the fit then returns [`FitError::Stopped`].
pub fn fit(
    req: &Request,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<Fit, FitError> {
    let started = Instant::now();
    let plan = Plan::new(req)?;
    let found = search_behaviour(&plan, req, progress)?;
    // The twin's behaviour, then its prices.
    let behaviour_spec = plan.drive_at(&found.best);
    let behaviour = if plan.search_behaviour {
        plan.space.overrides(&found.best)
    } else {
        vec![]
    };
    let mut found = found;
    let mut priced = fit_prices(&plan, req, &behaviour)?;
    let mut twin_values: Vec<(String, String)> = [&behaviour[..], &priced.values[..]].concat();
    let mut twin_spec = if twin_values == behaviour {
        behaviour_spec.clone()
    } else {
        plan.spec_with(&twin_values)
    };
    let all_measures = measures(&req.target.terms)?;
    let (twin, before, reference, prices_fit_worse) =
        measure_twin(&plan, req, &behaviour_spec, &twin_spec, &all_measures)?;
    if prices_fit_worse {
        priced.values.clear();
        priced.spreads.clear();
        twin_values = behaviour.clone();
        twin_spec = behaviour_spec;
        found.stopped = format!("{}; {KEPT_START_PRICES}", found.stopped);
    }
    let open = check_open(
        &plan,
        req,
        &twin_values,
        &twin_spec,
        &twin,
        &all_measures,
        progress,
    )?;
    let fitted: BTreeSet<String> = twin_values.iter().map(|(k, _)| k.clone()).collect();
    let mut keys = plan.keys.clone();
    for (key, value) in &twin_values {
        set(&mut keys, key, value.clone());
    }
    let findings = Findings {
        found,
        behaviour_len: behaviour.len(),
        twin_values,
        priced,
        twin,
        before,
        reference,
        open,
    };
    let report = report(&plan, req, findings, spec_of(&plan.preset, &keys), started);
    Ok(Fit {
        preset: plan.preset,
        keys,
        fitted,
        report,
    })
}

/// What a fit works from before it searches: the start, the target's terms by their part in
/// the fit, the spaces searched and the evaluations that measure their drives.
struct Plan<'a> {
    preset: String,
    /// The start's keys, with the target's capacity where it differs from the start's.
    keys: Vec<(String, String)>,
    /// Keys the start states: given, so never another value in the check of what is open.
    stated: Vec<String>,
    /// The reference's name and each of its keys' values.
    reference_values: Option<(&'a str, BTreeMap<String, String>)>,
    /// The start as a spec, and its value of every key.
    base: String,
    start: BTreeMap<String, String>,
    held_terms: Vec<Term>,
    fitted_terms: Vec<Term>,
    /// The fitted terms that read watts (the prices are fitted to them), and the others.
    priced_terms: Vec<Term>,
    behaviour_terms: Vec<Term>,
    space: Space,
    price_space: Space,
    left_out: Vec<String>,
    /// Whether the drive's behaviour is searched (else only its prices are).
    search_behaviour: bool,
    fit_measures: Vec<Measure>,
    origin: Vec<f64>,
    screen: Screen,
    evaluations: Evaluations,
}

impl<'a> Plan<'a> {
    fn new(req: &'a Request) -> Result<Plan<'a>, FitError> {
        let (preset, mut keys) = split_spec(&req.from)?;
        let stated: Vec<String> = keys.iter().map(|(k, _)| k.clone()).collect();
        let start_cfg = sim::resolve(&req.from)?;
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
        let start_cfg = sim::resolve(&base)?;
        let start = reference::values_of(&start_cfg);
        let (held_terms, fitted_terms) = split_held(req)?;
        // The drive's behaviour is searched on the figures that do not read watts; its
        // prices, which change nothing it does, after it on those that do (`prices`).
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
            return Err(FitError::NothingToSearch(left_out));
        }
        let fit_measures = measures(&behaviour_terms)?;
        let origin = space.origin();
        let screen = Screen::choose(&base, req.screen)?;
        if search_behaviour {
            least_budget(&space, &origin, screen, req.budget.evaluations)?;
        }
        let evaluations = Evaluations::open(req.cache.as_deref(), req.measurer.clone())?;
        Ok(Plan {
            preset,
            keys,
            stated,
            reference_values,
            base,
            start,
            held_terms,
            fitted_terms,
            priced_terms,
            behaviour_terms,
            space,
            price_space,
            left_out,
            search_behaviour,
            fit_measures,
            origin,
            screen,
            evaluations,
        })
    }

    /// The start's keys with `overrides` set.
    fn keys_with(&self, overrides: &[(String, String)]) -> Vec<(String, String)> {
        let mut k = self.keys.clone();
        for (key, value) in overrides {
            set(&mut k, key, value.clone());
        }
        k
    }

    /// The start with `overrides`, as a spec.
    fn spec_with(&self, overrides: &[(String, String)]) -> String {
        spec_of(&self.preset, &self.keys_with(overrides))
    }

    /// The drive at `x` of the behaviour's space, as a spec.
    fn drive_at(&self, x: &[f64]) -> String {
        // The start itself, not its keys restated: it is measured once.
        if x == self.origin.as_slice() {
            return self.base.clone();
        }
        self.spec_with(&self.space.overrides(x))
    }
}

/// The target's terms held out and fitted, refusing a hold-out that leaves nothing to fit or
/// names no figure of the target.
fn split_held(req: &Request) -> Result<(Vec<Term>, Vec<Term>), FitError> {
    let held = |t: &Term| req.hold_out.iter().any(|h| t.is_held_by(h));
    let (held_terms, fitted_terms): (Vec<Term>, Vec<Term>) =
        req.target.terms.iter().cloned().partition(held);
    if fitted_terms.is_empty() {
        return Err(FitError::AllHeldOut);
    }
    for h in &req.hold_out {
        if !held_terms.iter().any(|t| t.is_held_by(h)) {
            return Err(ArgError::NoHeldFigure {
                held: h.clone(),
                prefixes: prefixes(&req.target.terms),
            }
            .into());
        }
    }
    Ok((held_terms, fitted_terms))
}

/// Search the drive's behaviour: the best point of `plan.space` (its origin when only the
/// prices are searched).
fn search_behaviour(
    plan: &Plan,
    req: &Request,
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<search::Found, FitError> {
    let (space, origin, terms) = (&plan.space, &plan.origin, &plan.behaviour_terms);
    let full_at = |x: &[f64]| {
        plan.evaluations
            .figures(&plan.drive_at(x), &plan.fit_measures)
    };
    if !plan.search_behaviour {
        return Ok(search::Found::start(
            origin.clone(),
            "only the prices were searched",
        ));
    }
    if plan.screen.is_on() {
        let screened_at = |x: &[f64]| {
            plan.evaluations
                .screened(&plan.drive_at(x), &plan.fit_measures, plan.screen)
        };
        let loss_of = |f: &Figures| loss(terms, f);
        let residuals_of = |f: &Figures| residuals(terms, f);
        return screen::search(
            &space.starts(origin),
            &space.held(),
            &space.smooth(),
            &|x| space.across(x),
            &full_at,
            &screened_at,
            &loss_of,
            &residuals_of,
            req.budget,
            progress,
        );
    }
    let loss_at = |x: &[f64]| full_at(x).map_or(INVALID_LOSS, |f| loss(terms, &f));
    let mut found = search::from_starts(
        &space.starts(origin),
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
        &|x| full_at(x).ok().map(|f| residuals(terms, &f)),
        polish::budget(req.budget.evaluations),
        &search::pool(req.budget.jobs)?,
    );
    let found = polish::keep_if_better(found, polished, &loss_at);
    // The screen's rounds keep the start until a drive beats it; a search here may not.
    Ok(search::no_worse_than_start(found, origin, &loss_at))
}

/// The prices fitted on the twin's behaviour (`behaviour`, its keys): their keys' values.
#[derive(Default)]
struct FittedPrices {
    values: Vec<(String, String)>,
    runs: usize,
    spreads: Vec<Spread>,
}

fn fit_prices(
    plan: &Plan,
    req: &Request,
    behaviour: &[(String, String)],
) -> Result<FittedPrices, FitError> {
    let price_space = &plan.price_space;
    if price_space.is_empty() {
        return Ok(FittedPrices::default());
    }
    let priced_at =
        |y: &[f64]| plan.spec_with(&[behaviour, &price_space.overrides(y)[..]].concat());
    let price_measures = measures(&plan.priced_terms)?;
    let held_priced: Vec<Term> = plan
        .held_terms
        .iter()
        .filter(|t| t.is_priced())
        .cloned()
        .collect();
    let priced = prices::fit(
        price_space,
        &|y| plan.evaluations.figures(&priced_at(y), &price_measures),
        &plan.priced_terms,
        &held_priced,
        req.budget.seed,
        req.budget.jobs,
    )?;
    Ok(FittedPrices {
        values: price_space.overrides(&priced.best),
        runs: priced.runs,
        spreads: priced.spreads,
    })
}

/// The reference as the fit measured it, and its figures where the simulator ran it.
type Referenced = Option<(Reference, Option<Figures>)>;

/// The twin and the start, on every measurement, fitted and held out; and the reference,
/// where there is one. Prices change nothing a drive does, so the twin's figures but those
/// in watts are its behaviour's (`behaviour_spec`), measured already. True at the end when
/// the fitted prices fit worse than the start's: the twin's watts are then the start's.
fn measure_twin(
    plan: &Plan,
    req: &Request,
    behaviour_spec: &str,
    twin_spec: &str,
    all_measures: &[Measure],
) -> Result<(Figures, Figures, Referenced, bool), FitError> {
    let (evaluations, base) = (&plan.evaluations, &plan.base);
    let (all_priced, _): (Vec<Term>, Vec<Term>) =
        req.target.terms.iter().cloned().partition(Term::is_priced);
    // The prices were fitted on a linear model of their probes: they are kept only where the
    // drive measured at them fits the priced figures no worse than the start's prices do.
    let twin = || -> Result<(Figures, bool), FitError> {
        let mut f = evaluations.figures(behaviour_spec, all_measures)?;
        if twin_spec == behaviour_spec {
            return Ok((f, false));
        }
        let at_prices = evaluations.figures(twin_spec, &measures(&all_priced)?)?;
        // On the fitted terms only: a held-out figure must not choose the twin.
        let worse = loss(&plan.priced_terms, &at_prices) > loss(&plan.priced_terms, &f);
        if !worse {
            f.extend(at_prices);
        }
        Ok((f, worse))
    };
    let twin_and_start = || -> Result<((Figures, bool), Figures), FitError> {
        if behaviour_spec == base {
            // The start is the twin's behaviour: measured once.
            let before = evaluations.figures(base, all_measures)?;
            Ok((twin()?, before))
        } else {
            let (twin, before) = rayon::join(twin, || evaluations.figures(base, all_measures));
            Ok((twin?, before?))
        }
    };
    // Beside the twin and the start, so its measurements share the threads with theirs
    // rather than wait for the last of them.
    let (measured, reference) =
        rayon::join(twin_and_start, || measure_reference(plan, all_measures));
    let ((twin, worse), before) = measured?;
    Ok((twin, before, reference, worse))
}

/// What a fit says when the prices it fitted measured worse than the start's, which it keeps.
pub const KEPT_START_PRICES: &str =
    "the prices fitted measured worse than the start's, so the twin keeps the start's prices";

/// The reference, as the search could have found it: its values of the keys searched.
fn measure_reference(plan: &Plan, all_measures: &[Measure]) -> Referenced {
    let (space, price_space) = (&plan.space, &plan.price_space);
    plan.reference_values.as_ref().map(|(drive, values)| {
        let mut searched = price_space.overrides(&price_space.origin());
        if plan.search_behaviour {
            searched.extend(space.values(&plan.origin));
        }
        let spec = plan.spec_with(&reference::project(&searched, values));
        let unsearched = reference::unsearched(&plan.base, &plan.start, values, &searched);
        let outside = reference::outside(&[space, price_space], values, &searched, &spec);
        // A drive the simulator refuses is reported, not the fit's failure.
        let figures = plan.evaluations.figures(&spec, all_measures);
        let r = Reference {
            drive: drive.to_string(),
            spec,
            loss: figures.as_ref().ok().map(|f| loss(&plan.fitted_terms, f)),
            refused: figures.as_ref().err().map(ToString::to_string),
            unsearched,
            outside,
        };
        (r, figures.ok())
    })
}

/// The keys not searched, each at its other values on the twin (with no behaviour searched,
/// all of it is the start's, open without a check).
fn check_open(
    plan: &Plan,
    req: &Request,
    twin_values: &[(String, String)],
    twin_spec: &str,
    twin: &Figures,
    all_measures: &[Measure],
    progress: &mut dyn FnMut(&Progress) -> ControlFlow<()>,
) -> Result<open::Check, FitError> {
    let searched = [plan.space.keys(), plan.price_space.keys()].concat();
    let spec_with =
        |overrides: &[(String, String)]| plan.spec_with(&[twin_values, overrides].concat());
    let twin_cfg = sim::resolve(twin_spec)?;
    if !plan.search_behaviour {
        return Ok(open::Check::default());
    }
    open::check(
        &open::Twin {
            config: &twin_cfg,
            spec_with: &spec_with,
            figures: twin,
            loss: loss(&plan.fitted_terms, twin),
        },
        &req.params,
        &searched,
        &plan.stated,
        &plan.evaluations,
        plan.screen,
        all_measures,
        &plan.fitted_terms,
        &req.target.terms,
        &search::pool(req.budget.jobs)?,
        progress,
    )
}

/// What the fit found of its twin, for the report.
struct Findings {
    found: search::Found,
    /// How many of `twin_values` are its behaviour's (the rest are its prices).
    behaviour_len: usize,
    twin_values: Vec<(String, String)>,
    priced: FittedPrices,
    twin: Figures,
    /// The start's figures.
    before: Figures,
    reference: Referenced,
    open: open::Check,
}

/// The report of a fit whose twin is `twin_spec`.
fn report(
    plan: &Plan,
    req: &Request,
    findings: Findings,
    twin_spec: String,
    started: Instant,
) -> FitReport {
    let rows = |terms: &[Term]| -> Vec<TermRow> {
        let w = weights(terms);
        let reference = findings.reference.as_ref().and_then(|(_, f)| f.as_ref());
        terms
            .iter()
            .zip(w)
            .map(|(t, weight)| TermRow {
                open: findings.open.opened.get(&t.figure).cloned(),
                ..TermRow::new(t, weight, &findings.before, &findings.twin, reference)
            })
            .collect()
    };
    let (fitted, held_out) = (rows(&plan.fitted_terms), rows(&plan.held_terms));
    FitReport {
        drive: req.target.drive.clone(),
        from: req.from.clone(),
        twin: twin_spec,
        seed: req.budget.seed,
        params: param_rows(
            plan,
            &findings.found,
            &findings.twin_values[findings.behaviour_len..],
        ),
        left_out: plan.left_out.clone(),
        skipped: req.target.skipped.clone(),
        loss_start: loss(&plan.fitted_terms, &findings.before),
        loss_twin: loss(&plan.fitted_terms, &findings.twin),
        reference: findings.reference.map(|(r, _)| r),
        fitted,
        held_out,
        starts: start_rows(&plan.space, &findings.found.starts),
        history: findings.found.history,
        screen: plan.screen.factor,
        confirmed: findings.found.confirmed,
        finalists: findings.found.finalists,
        price_runs: findings.priced.runs,
        price_spreads: findings.priced.spreads,
        alternatives: findings.open.alternatives,
        evaluations: findings.found.evaluations,
        invalid: plan.evaluations.invalid(),
        stopped: findings.found.stopped,
        wall_s: started.elapsed().as_secs_f64(),
        time: plan.evaluations.time_spent(),
        seeds: vec![],
    }
}

/// Every key searched, for the report: the twin's values with a cell that is the start's,
/// which its spec leaves out, then its prices (`prices`).
fn param_rows(plan: &Plan, found: &search::Found, prices: &[(String, String)]) -> Vec<ParamRow> {
    let searched_values = if plan.search_behaviour {
        plan.space.values(&found.best)
    } else {
        vec![]
    };
    searched_values
        .iter()
        .chain(prices)
        .map(|(key, value)| ParamRow {
            key: key.clone(),
            start: plan.start.get(key).cloned().unwrap_or_default(),
            twin: value.clone(),
            reference: plan
                .reference_values
                .as_ref()
                .and_then(|(_, r)| r.get(key).cloned()),
            seeds: vec![],
        })
        .collect()
}

/// Each round's starts, as the keys that tell them apart.
fn start_rows(space: &Space, rounds: &[Vec<search::Start>]) -> Vec<Vec<StartRow>> {
    rounds
        .iter()
        .enumerate()
        .map(|(round, starts)| {
            // The first round's starts are told apart by the outer choices, later rounds'
            // by the keys across ([`screen::search`]).
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
        .collect()
}

/// Refuse a budget below what the search measures anyway (a first generation from each of
/// its first round's starts), naming the least that is honoured.
fn least_budget(
    space: &Space,
    origin: &[f64],
    screen: Screen,
    evaluations: usize,
) -> Result<(), FitError> {
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
    Err(ArgError::TooFewEvaluations {
        evaluations,
        least,
        starts,
        free,
    }
    .into())
}

/// The measurement prefixes of `terms`, each once.
fn prefixes(terms: &[Term]) -> Vec<String> {
    let set: BTreeSet<&str> = terms.iter().map(Term::prefix).collect();
    set.into_iter().map(String::from).collect()
}

/// A spec's preset and its overrides; a fit starts from a preset, not a file.
fn split_spec(spec: &str) -> Result<(String, Vec<(String, String)>), FitError> {
    let mut parts = spec.split(',').map(str::trim).filter(|p| !p.is_empty());
    let first = parts.next().unwrap_or("default");
    if first.to_ascii_lowercase().ends_with(".toml") {
        return Err(ArgError::FromFile(first.to_string()).into());
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
                .ok_or_else(|| FitError::from(ArgError::NotKeyValue(kv.to_string())))
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
        assert!(split_spec("twin.toml")
            .unwrap_err()
            .to_string()
            .contains("not a file"));
    }
}
