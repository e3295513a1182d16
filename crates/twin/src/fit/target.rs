//! What a fit aims at: a drive's figures, from its own results (a results directory of
//! `ssdlab suite`, real or simulated) or from published claims in the scorecard's format.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::same_drive::differs;
use crate::fidelity::measure::figures_of_results;
use crate::fidelity::{Check, Claim, ClaimsError, MeasureError, PresetFigureError};
use suite::methodology::overridden;
use suite::result::TestResult;

/// What a figure of the twin should be.
#[derive(Clone, Debug, PartialEq)]
pub enum Goal {
    /// Within `tolerance` (a share: 0.15) of a value; 0 for a drive's own results.
    Value {
        value: f64,
        tolerance: f64,
    },
    AtMost(f64),
    AtLeast(f64),
    Between(f64, f64),
    /// The per-second IOPS of a steady state, as its deciles (the 5th, 15th, ... 95th
    /// percentiles): compared as distributions, not means.
    Distribution(Vec<f64>),
    /// Compared with another figure of the twin: less or greater than `factor` times it, or
    /// within `tolerance` of it.
    Than {
        figure: String,
        check: Check,
        factor: f64,
        tolerance: f64,
    },
}

impl Goal {
    /// The drive's own figure, where the goal is one value (a distribution's mean).
    pub fn value(&self) -> Option<f64> {
        match self {
            Goal::Value { value, .. } => Some(*value),
            Goal::Distribution(q) => Some(q.iter().sum::<f64>() / q.len().max(1) as f64),
            _ => None,
        }
    }
}

/// One term of the loss.
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    /// `measure.figure`, as the claims name figures (`consistency.steady_mean`).
    pub figure: String,
    pub goal: Goal,
    /// Where the goal comes from: the drive's results or a claim.
    pub source: String,
}

impl Term {
    /// The measurement the term reads (`consistency`).
    pub fn prefix(&self) -> &str {
        self.figure.split('.').next().unwrap_or("")
    }

    /// Whether the term reads a figure in watts (`_w`, the figures' convention), itself or
    /// the figure it is compared with: what the energy model's prices change.
    pub fn is_priced(&self) -> bool {
        let watts = |f: &str| f.ends_with("_w");
        watts(&self.figure) || matches!(&self.goal, Goal::Than { figure, .. } if watts(figure))
    }

    /// Whether a hold-out names this term: its measurement (`power`), or the beginning of its
    /// figure's name (`power.seq`: the sequential write's figures of the power tests).
    pub fn is_held_by(&self, hold_out: &str) -> bool {
        if hold_out.contains('.') {
            self.figure.starts_with(hold_out)
        } else {
            self.prefix() == hold_out
        }
    }

    /// The goal in words, for the report.
    pub fn goal_text(&self) -> String {
        use crate::fidelity::fmt_num;
        match &self.goal {
            Goal::Value { value, tolerance } if *tolerance > 0.0 => {
                format!("{} ±{}%", fmt_num(*value), tolerance * 100.0)
            }
            Goal::Value { value, .. } => fmt_num(*value),
            Goal::AtMost(v) => format!("<= {}", fmt_num(*v)),
            Goal::AtLeast(v) => format!(">= {}", fmt_num(*v)),
            Goal::Between(lo, hi) => format!("{}-{}", fmt_num(*lo), fmt_num(*hi)),
            Goal::Distribution(q) => format!(
                "deciles {}..{}",
                fmt_num(q.first().copied().unwrap_or(0.0)),
                fmt_num(q.last().copied().unwrap_or(0.0))
            ),
            Goal::Than {
                figure,
                check,
                factor,
                tolerance,
            } => match check {
                Check::Less => format!("< {factor} x {figure}"),
                Check::Greater => format!("> {factor} x {figure}"),
                _ => format!("within {}% of {figure}", tolerance * 100.0),
            },
        }
    }
}

/// A drive's figures to fit, and what could not be used.
#[derive(Clone, Debug, Default)]
pub struct Target {
    /// The drive, in words (its model, or the preset the claims are about).
    pub drive: String,
    /// Its capacity, when the results say.
    pub capacity_bytes: Option<u64>,
    pub terms: Vec<Term>,
    /// Figures or claims left out, and why.
    pub skipped: Vec<String>,
}

/// Figures that restate others (ratios of figures already fitted) or are counts of rare
/// events: fitting them again would weigh their measurement twice.
const RESTATED: &[&str] = &[
    "qd32_scaling",
    "cliff_ratio",
    "burst_ratio",
    "dips_300_800",
    "dips_800_2000",
    "steady_median",
    "steady_cv",
];

/// The deciles' figure names: `steady_q05` ... `steady_q95`.
pub const DECILES: [&str; 10] = [
    "steady_q05",
    "steady_q15",
    "steady_q25",
    "steady_q35",
    "steady_q45",
    "steady_q55",
    "steady_q65",
    "steady_q75",
    "steady_q85",
    "steady_q95",
];

/// The name of a steady state's distribution term.
pub const DISTRIBUTION: &str = "steady_iops_distribution";

/// Why a target cannot be made of a drive's results or of claims.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("reading {}: {source}", .dir.display())]
    Results {
        dir: PathBuf,
        #[source]
        source: suite::SuiteError,
    },
    /// Two results directories of different drives (`how` says how they differ).
    #[error(
        "{} and {} are results of two drives ({how}): a twin fitted to both is \
         neither's; fit one drive's results at a time",
        .first.as_ref().map_or(String::new(), |d| d.display().to_string()),
        .second.display()
    )]
    TwoDirectories {
        first: Option<PathBuf>,
        second: PathBuf,
        how: String,
    },
    /// Results of different drives, `label` one of the second's.
    #[error(
        "the results are of two drives ({how}; {label} is of the second): a twin fitted to \
         both is neither's; fit one drive's results at a time"
    )]
    TwoDrives { how: String, label: String },
    #[error("no results to fit: give results directories of `ssdlab suite` (or `ssdlab run`) on the drive")]
    NoResults,
    #[error("the results hold no figure a fit can use: run the review suite (`ssdlab suite`) on the drive first")]
    NoFigures,
    #[error("{0}")]
    Figures(#[from] MeasureError),
    /// The committed claims.
    #[error("{0}")]
    Claims(#[from] ClaimsError),
    #[error("{path}: {source}")]
    ClaimsRead {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    ClaimsParse {
        path: String,
        #[source]
        source: ClaimsError,
    },
    /// Another drive's figure a claim compares the drive with.
    #[error("claim {claim}: {drive}'s {figure}: {source}")]
    OtherFigure {
        claim: String,
        drive: String,
        figure: String,
        #[source]
        source: Box<PresetFigureError>,
    },
    #[error("no claim is about {0}: name a drive the claims list in `on`")]
    NoClaim(String),
}

/// A claims file: text of a few hundred claims at most.
const CLAIMS_FILE: engine::regular_file::RegularFile =
    engine::regular_file::RegularFile::new("a claims file", 16 << 20);

impl Target {
    /// The figures of the results in `dirs` (results directories of one drive).
    pub fn from_results_dirs(dirs: &[PathBuf]) -> Result<Target, TargetError> {
        let mut all: Vec<TestResult> = Vec::new();
        let mut first_dir = None;
        for dir in dirs {
            let results =
                suite::results_dir::read_results(dir).map_err(|source| TargetError::Results {
                    dir: dir.clone(),
                    source,
                })?;
            let (Some(first), Some(r)) = (all.first(), results.first()) else {
                first_dir = first_dir.or(Some(dir));
                all.extend(results);
                continue;
            };
            if let Some(how) = differs(&first.target, &r.target) {
                return Err(TargetError::TwoDirectories {
                    first: first_dir.cloned(),
                    second: dir.clone(),
                    how,
                });
            }
            all.extend(results);
        }
        Target::from_results(&all)
    }

    /// The claims about `drive` in `claims`: a file in the scorecard's format, or `seeds`
    /// for the claims of the seeds ssdlab carries; `other` gives another drive's figure for
    /// the claims comparing the two ([`Target::from_claims`]).
    pub fn from_claims_file(
        claims: &str,
        drive: &str,
        other: &mut OtherFigure,
    ) -> Result<Target, TargetError> {
        let claims = match claims {
            "seeds" => crate::fidelity::claims()?,
            path => {
                let text = CLAIMS_FILE
                    .read_to_string(std::path::Path::new(path))
                    .map_err(|source| TargetError::ClaimsRead {
                        path: path.to_string(),
                        source,
                    })?;
                crate::fidelity::parse_claims(&text).map_err(|source| TargetError::ClaimsParse {
                    path: path.to_string(),
                    source,
                })?
            }
        };
        Target::from_claims(&claims, drive, other)
    }

    /// The figures of a drive's stored results: every figure a measurement gives, each a
    /// term with no tolerance, the steady states' deciles one distribution term.
    pub fn from_results(results: &[TestResult]) -> Result<Target, TargetError> {
        if results.is_empty() {
            return Err(TargetError::NoResults);
        }
        // The twin is measured at the methodology's own parameters: a result of a user's
        // options (`--quick`, a shorter run) measured something else. (Deviations the
        // target's size makes, the twin of the same capacity makes too.)
        if let Some((r, how)) = results
            .iter()
            .find_map(|r| Some((r, differs(&results[0].target, &r.target)?)))
        {
            return Err(TargetError::TwoDrives {
                how,
                label: r.label.clone(),
            });
        }
        let by_option = |r: &&TestResult| r.deviations.iter().any(|d| overridden(d));
        let (deviating, usable): (Vec<&TestResult>, Vec<&TestResult>) =
            results.iter().partition(by_option);
        let usable: Vec<TestResult> = usable.into_iter().cloned().collect();
        let figures = figures_of_results(&usable)?;
        let first = &results[0];
        let mut runs: Vec<&str> = results.iter().filter_map(|r| r.run_id.as_deref()).collect();
        runs.sort();
        runs.dedup();
        let source = match runs.len() {
            0 => "the drive's results".to_string(),
            _ => format!("run {}", runs.join(", run ")),
        };
        let mut t = Target {
            drive: first
                .target
                .model
                .clone()
                .unwrap_or_else(|| first.target.path.clone()),
            capacity_bytes: Some(first.target.capacity_bytes).filter(|&c| c > 0),
            ..Target::default()
        };
        for r in deviating {
            let options: Vec<&str> = r
                .deviations
                .iter()
                .map(String::as_str)
                .filter(|d| overridden(d))
                .collect();
            t.skipped.push(format!(
                "{}: measured with options of its own ({}); the twin is measured at the methodology's",
                r.label,
                options.join("; ")
            ));
        }
        let mut deciles: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for (name, &value) in &figures {
            let (prefix, figure) = name.split_once('.').unwrap_or(("", name));
            if DECILES.contains(&figure) {
                deciles.entry(prefix.to_string()).or_default().push(value);
                continue;
            }
            if RESTATED.contains(&figure) {
                continue;
            }
            if !value.is_finite() || value == 0.0 {
                t.skipped.push(format!(
                    "{name}: {value} in the results has no relative error"
                ));
                continue;
            }
            t.terms.push(Term {
                figure: name.clone(),
                goal: Goal::Value {
                    value,
                    tolerance: 0.0,
                },
                source: source.clone(),
            });
        }
        for (prefix, q) in deciles {
            t.terms.push(Term {
                figure: format!("{prefix}.{DISTRIBUTION}"),
                goal: Goal::Distribution(q),
                source: source.clone(),
            });
        }
        if t.terms.is_empty() {
            return Err(TargetError::NoFigures);
        }
        Ok(t)
    }

    /// The published claims about `drive` (a preset's name, as the claims say `on`): each
    /// claim on that drive, checked against a figure of its own, a bound, or another drive's
    /// figure as `other` gives it (`drive`, `figure`): the scorecard checks a claim that one
    /// drive draws as little idle power as another against the other's preset, and the fit
    /// aims at the same figure.
    pub fn from_claims(
        claims: &[Claim],
        drive: &str,
        other: &mut OtherFigure,
    ) -> Result<Target, TargetError> {
        let num = crate::fidelity::number;
        let mut t = Target {
            drive: drive.to_string(),
            ..Target::default()
        };
        for c in claims.iter().filter(|c| c.on.iter().any(|d| d == drive)) {
            let published = c.published.as_ref().and_then(num);
            let tolerance = c.tolerance.unwrap_or(15.0) / 100.0;
            let factor = c.factor.unwrap_or(1.0);
            let mut source = format!("claim {}", c.id);
            let goal = match (c.check, published) {
                (Check::Value, Some(value)) => Some(Goal::Value { value, tolerance }),
                (Check::AtMost, Some(v)) => Some(Goal::AtMost(v)),
                (Check::AtLeast, Some(v)) => Some(Goal::AtLeast(v)),
                (Check::Between, _) => c
                    .published
                    .as_ref()
                    .and_then(|v| v.as_array())
                    .and_then(|r| Some(Goal::Between(num(r.first()?)?, num(r.get(1)?)?))),
                (Check::Less | Check::Greater | Check::Near, _) => match c.than.as_deref() {
                    None => None,
                    Some(than) => {
                        let (d, figure) = crate::fidelity::split_than(than, drive, &c.metric);
                        if d == drive {
                            Some(Goal::Than {
                                figure,
                                check: c.check,
                                factor,
                                tolerance,
                            })
                        } else {
                            let b =
                                other(&d, &figure).map_err(|source| TargetError::OtherFigure {
                                    claim: c.id.clone(),
                                    drive: d.clone(),
                                    figure: figure.clone(),
                                    source: Box::new(source),
                                })?;
                            source = format!(
                                "{source}, against {d}'s preset ({figure} {})",
                                crate::fidelity::fmt_num(b)
                            );
                            Some(match c.check {
                                Check::Less => Goal::AtMost(factor * b),
                                Check::Greater => Goal::AtLeast(factor * b),
                                _ => Goal::Value {
                                    value: b,
                                    tolerance,
                                },
                            })
                        }
                    }
                },
                (Check::Lowest | Check::Highest, _) => {
                    let mut others = Vec::new();
                    for d in c.among.iter().filter(|d| *d != drive) {
                        let b = other(d, &c.metric).map_err(|source| TargetError::OtherFigure {
                            claim: c.id.clone(),
                            drive: d.clone(),
                            figure: c.metric.clone(),
                            source: Box::new(source),
                        })?;
                        others.push(b);
                    }
                    source = format!("{source}, against {} drives' presets", others.len());
                    let lowest = others.iter().copied().fold(f64::INFINITY, f64::min);
                    let highest = others.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    (!others.is_empty()).then_some(match c.check {
                        Check::Lowest => Goal::AtMost(lowest),
                        _ => Goal::AtLeast(highest),
                    })
                }
                _ => None,
            };
            match goal {
                Some(goal) => t.terms.push(Term {
                    figure: c.metric.clone(),
                    goal,
                    source,
                }),
                None => t
                    .skipped
                    .push(format!("claim {}: no figure or bound to fit", c.id)),
            }
        }
        if t.terms.is_empty() {
            return Err(TargetError::NoClaim(drive.to_string()));
        }
        Ok(t)
    }
}

/// Another drive's figure (`drive`, `figure`), as its preset simulates it: what a claim
/// comparing the fitted drive with another is fitted against.
pub type OtherFigure<'a> = dyn FnMut(&str, &str) -> Result<f64, PresetFigureError> + 'a;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hold_out_names_a_measurement_or_the_beginning_of_figures() {
        let term = |figure: &str| Term {
            figure: figure.into(),
            goal: Goal::AtLeast(1.0),
            source: String::new(),
        };
        let (seq, idle) = (term("power.seq_write_w"), term("power.idle_w"));
        assert!(seq.is_held_by("power") && idle.is_held_by("power"));
        assert!(seq.is_held_by("power.seq") && !idle.is_held_by("power.seq"));
        assert!(!term("powerful.x").is_held_by("power"));
        assert!(!term("consistency25.steady_mean").is_held_by("consistency"));
    }

    #[test]
    fn a_claim_comparing_drives_aims_at_the_other_drive_s_figure() {
        let claims = crate::fidelity::parse_claims(
            r#"
[[claim]]
id = "idle-like"
kind = "review"
claim = "idles like its sibling"
source = "this test"
on = ["a"]
metric = "power.idle_w"
check = "near"
tolerance = 20
than = "b"

[[claim]]
id = "faster"
kind = "review"
claim = "reads faster than half its own writes"
source = "this test"
on = ["a"]
metric = "spec.seq_read_mbps"
check = "greater"
factor = 0.5
than = ":spec.seq_write_mbps"

[[claim]]
id = "flattest"
kind = "review"
claim = "the flattest"
source = "this test"
on = ["a"]
metric = "consistency.steady_cv"
check = "lowest"
among = ["a", "b", "c"]
"#,
        )
        .unwrap();
        let mut asked = vec![];
        let mut other = |d: &str, figure: &str| {
            asked.push(format!("{d} {figure}"));
            match d {
                "b" => Ok(0.3),
                _ => Ok(0.1),
            }
        };
        let t = Target::from_claims(&claims, "a", &mut other).unwrap();
        assert_eq!(
            asked,
            [
                "b power.idle_w",
                "b consistency.steady_cv",
                "c consistency.steady_cv"
            ]
        );
        assert_eq!(
            t.terms[0].goal,
            Goal::Value {
                value: 0.3,
                tolerance: 0.2
            }
        );
        assert!(
            t.terms[0].source.contains("against b's preset"),
            "{}",
            t.terms[0].source
        );
        assert!(
            matches!(&t.terms[1].goal, Goal::Than { figure, factor, .. } if figure == "spec.seq_write_mbps" && *factor == 0.5)
        );
        assert_eq!(t.terms[2].goal, Goal::AtMost(0.1));
        let mut unknown = |d: &str, _: &str| {
            Err(PresetFigureError::NotAPreset {
                drive: d.to_string(),
                source: sim::resolve(d).unwrap_err(),
            })
        };
        let err = Target::from_claims(&claims, "a", &mut unknown)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("claim idle-like: b's power.idle_w: 'b' is not a preset"),
            "{err}"
        );
    }
}
