//! The energy model's prices (its watts and joules) change nothing a simulated drive does,
//! only what its power figures read, and those are linear in them: energy is the activity's
//! counts times their prices. So a fit searches the drive's behaviour without them, then
//! prices the twin: its priced measurements run once at the start's prices and once with
//! each price moved, which gives every figure's exact dependence on every price, and the
//! prices are searched on that linear model, a drive in microseconds instead of minutes.
//!
//! The figures may not tell the prices apart (idle, slumber and one load point leave the
//! active, controller and program terms one equation for three), so the model's search is
//! pulled, slightly, to the start: prices the figures cannot separate move as little as the
//! figures allow (the least-squares distance in the search's coordinates, ridge regression's
//! rule) instead of landing wherever the search stopped.
//!
//! What they leave open is reported, not hidden: on the same model, a held-out figure in
//! watts is pushed as low and as high as prices that meet the fitted figures as well as the
//! twin's allow ([`Spread`]), so a prediction that rests on a split the figures cannot tell
//! says how far it could be off.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use rayon::prelude::*;

use serde::Serialize;

use super::loss::{aimed_error, figure, loss, weights};
use super::search::{self, Budget, INITIAL_STEP};
use super::space::Space;
use super::target::Term;
use super::FitError;
use crate::fidelity::Figures;

/// Whether `key` is a price of the energy model (in watts or joules).
pub fn is_price(key: &str) -> bool {
    sim::preset::ranges()
        .any(|r| r.key == key && matches!(r.quantity, sim::Quantity::Watts | sim::Quantity::Joules))
}

/// The pull to the start, per squared coordinate: far below what a figure's error weighs,
/// so it decides only among prices the figures cannot tell apart.
const PULL: f64 = 1e-3;

/// Drives of the linear model the search evaluates (each a few microseconds).
const MODEL_EVALUATIONS: usize = 4000;

/// Prices fit the fitted figures as well as the twin's when their loss on them is at most
/// this much above the twin's (a point of mean relative error: within a power meter's
/// accuracy).
pub(super) const AS_WELL: f64 = 0.01;

/// A held-out figure's range over the prices that fit the fitted figures as well as the
/// twin's ([`AS_WELL`]), within the space's reach.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Spread {
    pub figure: String,
    pub low: f64,
    pub high: f64,
}

/// The priced figures of a drive, linear in its prices.
struct Linear {
    /// The figures at the start's prices.
    base: Figures,
    /// Each price at the start.
    start: Vec<f64>,
    /// Per price, each figure's change per unit of it.
    slopes: Vec<BTreeMap<String, f64>>,
}

impl Linear {
    fn figures(&self, prices: &[f64]) -> Figures {
        let mut f = self.base.clone();
        for ((slope, p), p0) in self.slopes.iter().zip(prices).zip(&self.start) {
            for (name, s) in slope {
                if let Some(v) = f.get_mut(name) {
                    *v += s * (p - p0);
                }
            }
        }
        f
    }
}

/// What pricing found: the prices' coordinates in `space`, the drives measured for the
/// model, and what the prices leave open of each held-out figure the model gives.
pub struct Priced {
    pub best: Vec<f64>,
    pub runs: usize,
    pub spreads: Vec<Spread>,
}

/// Where the linear model is measured: the start, and each price moved half a coordinate
/// (inwards).
fn probes(origin: &[f64]) -> Vec<Vec<f64>> {
    std::iter::once(origin.to_vec())
        .chain((0..origin.len()).map(|k| {
            let mut x = origin.to_vec();
            x[k] += if x[k] > 0.0 { -0.5 } else { 0.5 };
            x
        }))
        .collect()
}

/// Fit the prices of `space` to `terms` (figures that depend on them): `figures_at` measures
/// the twin at a point of `space`; `held` are held-out terms, whose figures' [`Spread`]s are
/// given where the priced measurements give them. Deterministic for `seed`; `jobs` drives at
/// once.
pub fn fit(
    space: &Space,
    figures_at: &(dyn Fn(&[f64]) -> Result<Figures, FitError> + Sync),
    terms: &[Term],
    held: &[Term],
    seed: u64,
    jobs: usize,
) -> Result<Priced, FitError> {
    let origin = space.origin();
    let prices = |x: &[f64]| -> Result<Vec<f64>, FitError> {
        space
            .overrides(x)
            .iter()
            .map(|(key, text)| {
                let n = sim::preset::quantities(key, text)?;
                n.first().copied().ok_or_else(|| FitError::NoValue {
                    key: key.clone(),
                    text: text.clone(),
                })
            })
            .collect()
    };
    let probes = probes(&origin);
    let measured: Vec<Figures> = search::pool(jobs)?.install(|| {
        probes
            .par_iter()
            .map(|x| figures_at(x))
            .collect::<Result<_, _>>()
    })?;
    let start = prices(&origin)?;
    let mut slopes = Vec::new();
    for (k, (x, f)) in probes.iter().zip(&measured).skip(1).enumerate() {
        let dp = prices(x)?[k] - start[k];
        if dp == 0.0 {
            return Err(FitError::PriceUnmoved(space.keys()[k].to_string()));
        }
        slopes.push(
            f.iter()
                .filter_map(|(name, v)| Some((name.clone(), (v - measured[0].get(name)?) / dp)))
                .collect(),
        );
    }
    let model = Linear {
        base: measured[0].clone(),
        start,
        slopes,
    };
    // Squared errors: a smooth valley along the prices the figures leave free, which the
    // search follows to the point nearest the start (a sharp one it stalls in).
    let w = weights(terms);
    let total: f64 = w.iter().sum();
    let objective = |x: &[f64]| {
        let pull: f64 = x.iter().zip(&origin).map(|(a, b)| (a - b).powi(2)).sum();
        let Ok(p) = prices(x) else {
            return f64::INFINITY;
        };
        let f = model.figures(&p);
        let squared: f64 = terms
            .iter()
            .zip(&w)
            .map(|(t, w)| w * aimed_error(t, &f).powi(2))
            .sum();
        squared / total + PULL * pull
    };
    let on_model = |from: &[f64], objective: &(dyn Fn(&[f64]) -> f64 + Sync)| {
        let budget = Budget {
            evaluations: MODEL_EVALUATIONS,
            seed,
            jobs: 1,
        };
        search::minimise(from, INITIAL_STEP, objective, budget, &mut |_| {
            ControlFlow::Continue(())
        })
        .map(|found| found.best)
    };
    let best = on_model(&origin, &objective)?;

    // Each held-out figure the model gives, as low and as high as prices that fit as well go.
    let fitted_loss =
        |x: &[f64]| prices(x).map_or(f64::INFINITY, |p| loss(terms, &model.figures(&p)));
    let bound = fitted_loss(&best) + AS_WELL;
    let at_best = model.figures(&prices(&best)?);
    let mut spreads = Vec::new();
    for t in held {
        let Some(twin) = figure(&at_best, &t.figure).filter(|v| *v != 0.0) else {
            continue;
        };
        let value = |x: &[f64]| {
            prices(x)
                .ok()
                .and_then(|p| figure(&model.figures(&p), &t.figure))
        };
        let mut ends = [twin; 2];
        for (end, sign) in ends.iter_mut().zip([1.0, -1.0]) {
            // CMA-ES ranks: any price that fits worse ranks below every one that fits as well.
            let objective = |x: &[f64]| match (fitted_loss(x), value(x)) {
                (l, Some(v)) if l <= bound => sign * v / twin.abs(),
                (l, _) => 1e6 + l,
            };
            let x = on_model(&best, &objective)?;
            if fitted_loss(&x) <= bound {
                *end = value(&x).unwrap_or(twin);
            }
        }
        spreads.push(Spread {
            figure: t.figure.clone(),
            low: ends[0].min(twin),
            high: ends[1].max(twin),
        });
    }
    Ok(Priced {
        best,
        runs: probes.len(),
        spreads,
    })
}

#[cfg(test)]
mod tests {
    use super::super::space::{param, Space};
    use super::super::target::Goal;
    use super::*;

    fn term(figure: &str, value: f64) -> Term {
        Term {
            figure: figure.into(),
            goal: Goal::Value {
                value,
                tolerance: 0.0,
            },
            source: "test".into(),
        }
    }

    /// A drive whose idle power is `p_idle` and whose one load point draws `p_active` plus
    /// `p_ctrl` over it.
    fn watts(space: &Space, x: &[f64]) -> Figures {
        let p: BTreeMap<String, f64> = space
            .overrides(x)
            .into_iter()
            .map(|(k, v)| (k.clone(), sim::preset::quantities(&k, &v).unwrap()[0]))
            .collect();
        [
            ("power.idle_w", p["p_idle"]),
            ("power.load_w", p["p_idle"] + p["p_active"] + p["p_ctrl"]),
            ("power.load_iops", 1000.0),
            // Held out: the same load at half the rate, and another load whose activity
            // weighs the controller's term three times as much.
            (
                "power.half_w",
                p["p_idle"] + 0.5 * (p["p_active"] + p["p_ctrl"]),
            ),
            (
                "power.other_w",
                p["p_idle"] + p["p_active"] + 3.0 * p["p_ctrl"],
            ),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    #[test]
    fn prices_told_by_the_figures_are_found_and_the_rest_keep_the_start_proportions() {
        let start: BTreeMap<String, String> =
            [("p_idle", "0.3W"), ("p_active", "1W"), ("p_ctrl", "0.5W")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        let params: Vec<_> = ["p_idle", "p_active", "p_ctrl"]
            .iter()
            .map(|k| param(k).unwrap())
            .collect();
        let space = Space::new(&params, &start, 256 << 30, &["power"]);
        assert_eq!(space.len(), 3);
        // An enterprise drive: 0.65 W idle, 3 W more under load.
        let terms = [term("power.idle_w", 0.65), term("power.load_w", 3.65)];
        let runs = std::sync::atomic::AtomicUsize::new(0);
        let at = |x: &[f64]| {
            runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(watts(&space, x))
        };
        let held = [term("power.half_w", 2.15), term("power.other_w", 7.0)];
        let priced = fit(&space, &at, &terms, &held, 1, 2).unwrap();
        assert_eq!(priced.runs, 4, "the start and each price moved");
        assert_eq!(runs.into_inner(), 4, "the model's drives are not measured");
        let f = watts(&space, &priced.best);
        assert!((f["power.idle_w"] - 0.65).abs() < 0.005, "{f:?}");
        assert!((f["power.load_w"] - 3.65).abs() < 0.02, "{f:?}");
        // The load's split cannot be told: the nearest split to the start's 1 W and 0.5 W (in
        // coordinates of a factor of 8: 8^a + 0.5 * 8^c = 3 with a^2 + c^2 least) is 2.37 W
        // and 0.63 W, not wherever the search stopped.
        let p: BTreeMap<String, f64> = space
            .overrides(&priced.best)
            .into_iter()
            .map(|(k, v)| (k.clone(), sim::preset::quantities(&k, &v).unwrap()[0]))
            .collect();
        assert!((p["p_active"] - 2.37).abs() < 0.05, "{p:?}");
        assert!((p["p_ctrl"] - 0.63).abs() < 0.05, "{p:?}");
        // The same seed, the same prices.
        let again = fit(&space, &|x| Ok(watts(&space, x)), &terms, &held, 1, 2).unwrap();
        assert_eq!(again.best, priced.best);
        assert_eq!(again.spreads, priced.spreads);

        // What the prices leave open: nothing of a figure the fitted ones tell (the same
        // load at half the rate), a wide range of one that splits the load another way.
        let [half, other] = &priced.spreads[..] else {
            panic!("{:?}", priced.spreads)
        };
        assert_eq!(half.figure, "power.half_w");
        assert!(half.low > 2.1 && half.high < 2.2, "{half:?}");
        assert!(half.low <= f["power.half_w"] && f["power.half_w"] <= half.high);
        assert_eq!(other.figure, "power.other_w");
        // The split ranges over the factor of 8 either way: p_ctrl from 0.0625 W up to the
        // load's 3 W, so the other load from about 3.8 W to about 9.6 W.
        assert!(other.low < 4.5 && other.high > 8.5, "{other:?}");
    }

    #[test]
    fn prices_are_the_energy_model_keys() {
        assert!(is_price("p_idle") && is_price("e_prog") && is_price("slc_e_prog"));
        assert!(!is_price("t_prog") && !is_price("slumber_after") && !is_price("op"));
    }
}
