//! The loss: how far a simulated drive's figures are from the target's, term by term.
//!
//! Every error is relative (a share of the goal), so IOPS, MB/s, seconds and watts weigh
//! alike; a bound's error is how far past it the figure is; a distribution's is the mean
//! distance between deciles over the goal's mean (the Wasserstein-1 distance of the two
//! per-second distributions, normalised). Each measurement weighs the same whatever number of
//! figures it gives: a term's weight is one over its measurement's terms.

use std::collections::BTreeMap;

use super::target::{Goal, Term, DECILES, DISTRIBUTION};
use crate::fidelity::{Check, Figures};

/// The largest error one term counts: a drive ten times off is no worse to the search
/// than three times, and one wild figure must not drown the rest.
pub(super) const MAX_ERROR: f64 = 3.0;

/// A finite figure of `figures` (a run that did not give one gives none).
pub fn figure(figures: &Figures, name: &str) -> Option<f64> {
    crate::fidelity::figure(figures, name).filter(|v| v.is_finite())
}

/// The twin's side of a term: its figure (its mean, for a distribution).
pub fn twin_value(term: &Term, figures: &Figures) -> Option<f64> {
    match term.figure.strip_suffix(DISTRIBUTION) {
        Some(prefix) => {
            let q = deciles(figures, prefix)?;
            Some(q.iter().sum::<f64>() / q.len() as f64)
        }
        None => figure(figures, &term.figure),
    }
}

fn deciles(figures: &Figures, prefix: &str) -> Option<Vec<f64>> {
    DECILES
        .iter()
        .map(|d| figure(figures, &format!("{prefix}{d}")))
        .collect()
}

/// The share of a goal's tolerance the fit aims within: a twin on the edge of a claim's
/// band meets it or not by the screened search's error (the msata 120 twin's random writes,
/// 0.4% past a 15% band, with a loss that counted nothing inside), so the search counts what
/// lies past half the band, and the report the claim's own.
const AIM: f64 = 0.5;

/// The error of one term on a simulated drive's figures: 0 when met; a figure the
/// simulation did not give counts as the largest error.
pub fn error(term: &Term, figures: &Figures) -> f64 {
    error_within(term, figures, 1.0)
}

/// The error the search minimises: [`error`], past [`AIM`] of a tolerance.
pub fn aimed_error(term: &Term, figures: &Figures) -> f64 {
    error_within(term, figures, AIM)
}

/// The error with `share` of each tolerance.
fn error_within(term: &Term, figures: &Figures, share: f64) -> f64 {
    let rel = |a: f64, b: f64| (a - b).abs() / b.abs().max(1e-12);
    let e = match &term.goal {
        Goal::Distribution(goal) => term
            .figure
            .strip_suffix(DISTRIBUTION)
            .and_then(|prefix| deciles(figures, prefix))
            .map(|q| {
                let mean = goal.iter().sum::<f64>() / goal.len().max(1) as f64;
                let w1 = q.iter().zip(goal).map(|(a, b)| (a - b).abs()).sum::<f64>()
                    / goal.len().max(1) as f64;
                w1 / mean.max(1e-12)
            }),
        goal => figure(figures, &term.figure).and_then(|s| match goal {
            Goal::Value { value, tolerance } => Some((rel(s, *value) - share * tolerance).max(0.0)),
            Goal::AtMost(v) => Some(if s <= *v { 0.0 } else { rel(s, *v) }),
            Goal::AtLeast(v) => Some(if s >= *v { 0.0 } else { rel(s, *v) }),
            Goal::Between(lo, hi) => Some(if s < *lo {
                rel(s, *lo)
            } else if s > *hi {
                rel(s, *hi)
            } else {
                0.0
            }),
            Goal::Than {
                figure: other,
                check,
                factor,
                tolerance,
            } => figure(figures, other).map(|b| {
                let bound = factor * b;
                match check {
                    Check::Less if s >= bound => rel(s, bound).max(0.01),
                    Check::Greater if s <= bound => rel(s, bound).max(0.01),
                    Check::Near => (rel(s, b) - share * tolerance).max(0.0),
                    _ => 0.0,
                }
            }),
            Goal::Distribution(_) => unreachable!("handled above"),
        }),
    };
    e.map_or(MAX_ERROR, |e| e.min(MAX_ERROR))
}

/// Each term's weight: one over the number of terms of its measurement.
pub fn weights(terms: &[Term]) -> Vec<f64> {
    let mut per: BTreeMap<&str, usize> = BTreeMap::new();
    for t in terms {
        *per.entry(t.prefix()).or_default() += 1;
    }
    terms.iter().map(|t| 1.0 / per[t.prefix()] as f64).collect()
}

/// The loss of `figures`: the weighted mean of the terms' errors ([`aimed_error`]).
pub fn loss(terms: &[Term], figures: &Figures) -> f64 {
    let w = weights(terms);
    let total: f64 = w.iter().sum();
    terms
        .iter()
        .zip(&w)
        .map(|(t, w)| w * aimed_error(t, figures))
        .sum::<f64>()
        / total.max(1e-12)
}

/// The terms' errors with their signs (+ where the figure is above what it aims at), each
/// scaled so that the sum of their squares is the weighted mean of the squared errors: the
/// residuals a least-squares step reads ([`super::polish`]). A distribution gives one per
/// decile. Always as many as the terms make, a figure missing counting its largest error.
pub fn residuals(terms: &[Term], figures: &Figures) -> Vec<f64> {
    let w = weights(terms);
    let total: f64 = w.iter().sum::<f64>().max(1e-12);
    let mut r = Vec::new();
    for (t, w) in terms.iter().zip(&w) {
        let scale = (w / total).sqrt();
        if let Goal::Distribution(goal) = &t.goal {
            let n = goal.len().max(1) as f64;
            let mean = (goal.iter().sum::<f64>() / n).max(1e-12);
            let q = t
                .figure
                .strip_suffix(DISTRIBUTION)
                .and_then(|prefix| deciles(figures, prefix));
            for (i, g) in goal.iter().enumerate() {
                let e = q.as_ref().map_or(MAX_ERROR, |q| {
                    ((q[i] - g) / mean).clamp(-MAX_ERROR, MAX_ERROR)
                });
                r.push(scale * e / n.sqrt());
            }
            continue;
        }
        let above = figure(figures, &t.figure).is_none_or(|s| s >= aimed_at(&t.goal, s, figures));
        let e = aimed_error(t, figures);
        r.push(scale * if above { e } else { -e });
    }
    r
}

/// The value a figure `s` is measured against under `goal`: which side of it the figure is
/// gives its error's sign.
fn aimed_at(goal: &Goal, s: f64, figures: &Figures) -> f64 {
    match goal {
        Goal::Value { value, .. } => *value,
        Goal::AtMost(v) | Goal::AtLeast(v) => *v,
        Goal::Between(lo, hi) => {
            if s < *lo {
                *lo
            } else {
                *hi
            }
        }
        Goal::Than {
            figure: other,
            check,
            factor,
            ..
        } => figure(figures, other).map_or(s, |b| match check {
            Check::Near => b,
            _ => factor * b,
        }),
        Goal::Distribution(_) => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(figure: &str, goal: Goal) -> Term {
        Term {
            figure: figure.into(),
            goal,
            source: "test".into(),
        }
    }

    fn figures(pairs: &[(&str, f64)]) -> Figures {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn errors_are_relative_and_bounds_are_met_inside() {
        let f = figures(&[("corners.seq_read_mbps", 450.0), ("power.idle_w", 0.5)]);
        let value = |v, tolerance| Goal::Value {
            value: v,
            tolerance,
        };
        assert!((error(&term("corners.seq_read_mbps", value(500.0, 0.0)), &f) - 0.1).abs() < 1e-9);
        assert_eq!(
            error(&term("corners.seq_read_mbps", value(500.0, 0.15)), &f),
            0.0
        );
        // The search aims within half the band: 10% off a 15% band is a claim met, and
        // 2.5% past what the search aims at.
        let met = term("corners.seq_read_mbps", value(500.0, 0.15));
        assert!((aimed_error(&met, &f) - 0.025).abs() < 1e-9);
        assert!((loss(&[met], &f) - 0.025).abs() < 1e-9);
        assert_eq!(error(&term("power.idle_w", Goal::AtMost(0.6)), &f), 0.0);
        assert!((error(&term("power.idle_w", Goal::AtMost(0.25)), &f) - 1.0).abs() < 1e-9);
        assert_eq!(
            error(&term("power.busy_w", Goal::AtMost(1.0)), &f),
            MAX_ERROR
        );
    }

    #[test]
    fn a_distribution_is_compared_decile_by_decile() {
        let goal: Vec<f64> = (0..10).map(|i| 1000.0 + 100.0 * i as f64).collect();
        let mut f = Figures::new();
        for (d, v) in DECILES.iter().zip(&goal) {
            // The same mean, a narrower spread: the means agree, the distributions do not.
            f.insert(format!("consistency.{d}"), 1450.0 + (v - 1450.0) / 2.0);
        }
        let t = term(
            "consistency.steady_iops_distribution",
            Goal::Distribution(goal),
        );
        assert_eq!(twin_value(&t, &f), Some(1450.0));
        let e = error(&t, &f);
        assert!((e - 125.0 / 1450.0).abs() < 1e-9, "{e}");
    }

    #[test]
    fn residuals_carry_the_errors_sign_and_the_terms_weights() {
        let v = |value| Goal::Value {
            value,
            tolerance: 0.0,
        };
        let goal: Vec<f64> = (0..10).map(|i| 100.0 + 10.0 * i as f64).collect();
        let terms = [
            term("corners.a", v(100.0)),
            term("corners.b", v(100.0)),
            term("trim.a", Goal::AtLeast(50.0)),
            term(
                "consistency.steady_iops_distribution",
                Goal::Distribution(goal.clone()),
            ),
        ];
        let mut f = figures(&[("corners.a", 110.0), ("corners.b", 80.0), ("trim.a", 40.0)]);
        for (d, g) in DECILES.iter().zip(&goal) {
            f.insert(format!("consistency.{d}"), g + 29.0);
        }
        let r = residuals(&terms, &f);
        assert_eq!(r.len(), 3 + 10);
        // Weights 0.5, 0.5, 1, 1 of 3: corners.a 10% above, corners.b 20% below, trim 20% short.
        assert!((r[0] - (0.5f64 / 3.0).sqrt() * 0.1).abs() < 1e-9, "{r:?}");
        assert!((r[1] + (0.5f64 / 3.0).sqrt() * 0.2).abs() < 1e-9, "{r:?}");
        assert!((r[2] + (1.0f64 / 3.0).sqrt() * 0.2).abs() < 1e-9, "{r:?}");
        // Every decile 29 above a mean of 145: 0.2 each, and their squares add up to the
        // term's weight times 0.2 squared.
        let d: f64 = r[3..].iter().map(|x| x * x).sum();
        assert!((d - 0.04 / 3.0).abs() < 1e-9, "{d}");
        assert!(r[3..].iter().all(|&x| x > 0.0));
        // A figure missing is its largest error, and the count holds.
        let r = residuals(&terms, &figures(&[("corners.a", 100.0)]));
        assert_eq!(r.len(), 13);
        assert_eq!(r[0], 0.0);
        assert!(r[1] > 0.0 && r[3] > 0.0);
    }

    #[test]
    fn each_measurement_weighs_the_same() {
        let v = Goal::Value {
            value: 1.0,
            tolerance: 0.0,
        };
        let terms = [
            term("corners.a", v.clone()),
            term("corners.b", v.clone()),
            term("trim.a", v),
        ];
        assert_eq!(weights(&terms), [0.5, 0.5, 1.0]);
    }
}
