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

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use rayon::prelude::*;

use super::loss::{error, weights};
use super::search::{self, Budget, INITIAL_STEP};
use super::space::Space;
use super::target::Term;
use crate::fidelity::Figures;

/// Whether `key` is a price of the energy model (in watts or joules).
pub fn is_price(key: &str) -> bool {
    sim::preset::RANGES
        .iter()
        .any(|r| r.key == key && matches!(r.quantity, sim::Quantity::Watts | sim::Quantity::Joules))
}

/// The pull to the start, per squared coordinate: far below what a figure's error weighs,
/// so it decides only among prices the figures cannot tell apart.
const PULL: f64 = 1e-3;

/// Drives of the linear model the search evaluates (each a few microseconds).
const MODEL_EVALUATIONS: usize = 4000;

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

/// What pricing found: the prices' coordinates in `space`, and the drives measured for the
/// model.
pub struct Priced {
    pub best: Vec<f64>,
    pub runs: usize,
}

/// Fit the prices of `space` to `terms` (figures that depend on them): `figures_at` measures
/// the twin at a point of `space`. Deterministic for `seed`; `jobs` drives at once.
pub fn fit(
    space: &Space,
    figures_at: &(dyn Fn(&[f64]) -> Result<Figures, String> + Sync),
    terms: &[Term],
    seed: u64,
    jobs: usize,
) -> Result<Priced, String> {
    let origin = space.origin();
    let prices = |x: &[f64]| -> Result<Vec<f64>, String> {
        space
            .overrides(x)
            .iter()
            .map(|(key, text)| {
                let n = sim::preset::quantities(key, text)?;
                n.first()
                    .copied()
                    .ok_or_else(|| format!("{key}={text}: no value"))
            })
            .collect()
    };
    // The start, and each price moved half a coordinate (inwards).
    let probes: Vec<Vec<f64>> = std::iter::once(origin.clone())
        .chain((0..origin.len()).map(|k| {
            let mut x = origin.clone();
            x[k] += if x[k] > 0.0 { -0.5 } else { 0.5 };
            x
        }))
        .collect();
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
            return Err(format!("{}: moving it did not change it", space.keys()[k]));
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
            .map(|(t, w)| w * error(t, &f).powi(2))
            .sum();
        squared / total + PULL * pull
    };
    let found = search::minimise(
        &origin,
        INITIAL_STEP,
        &objective,
        Budget {
            evaluations: MODEL_EVALUATIONS,
            seed,
            jobs: 1,
        },
        &mut |_| ControlFlow::Continue(()),
    )?;
    Ok(Priced {
        best: found.best,
        runs: probes.len(),
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
        let priced = fit(&space, &at, &terms, 1, 2).unwrap();
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
        let again = fit(&space, &|x| Ok(watts(&space, x)), &terms, 1, 2).unwrap();
        assert_eq!(again.best, priced.best);
    }

    #[test]
    fn prices_are_the_energy_model_keys() {
        assert!(is_price("p_idle") && is_price("e_prog") && is_price("slc_e_prog"));
        assert!(!is_price("t_prog") && !is_price("slumber_after") && !is_price("op"));
    }
}
