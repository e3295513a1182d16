//! What a fit found: the parameters, the error of every term fitted and held out (the
//! start's and the twin's), the loss history; as Markdown for a reader, as JSON for tools,
//! and the twin's own TOML file, which says of every fitted key what it was fitted to.

use std::fmt::Write as _;

use serde::Serialize;

use super::evaluations::TimeSpent;
use super::loss::{error, twin_value};
use super::open::{Alternative, Opened};
use super::prices::{Spread, AS_WELL};
use super::reference::Reference;
use super::seeds::{agreement, SeedRun, AGREE};
use super::target::Term;
use super::Fit;
use crate::fidelity::{fmt_num, Figures};

/// A searched key: where it started and where the fit left it.
#[derive(Clone, Debug, Serialize)]
pub struct ParamRow {
    pub key: String,
    pub start: String,
    pub twin: String,
    /// The reference's value ([`Reference`]), when the fit has one.
    pub reference: Option<String>,
    /// With several seeds, each seed's twin's value, in the seeds' order (a key some twin
    /// did not set: its start's); empty with one.
    pub seeds: Vec<String>,
}

/// A term of the loss: the drive's figure, the start's and the twin's, and their errors.
#[derive(Clone, Debug, Serialize)]
pub struct TermRow {
    pub figure: String,
    pub source: String,
    /// The goal in words.
    pub goal: String,
    /// The drive's own figure, where the goal is one value (a distribution's mean).
    pub drive: Option<f64>,
    pub start: Option<f64>,
    pub twin: Option<f64>,
    /// Relative errors (0.1 is 10%); a bound met is 0.
    pub start_error: f64,
    pub twin_error: f64,
    pub weight: f64,
    /// The reference's figure and error ([`Reference`]), when the fit has one.
    pub reference: Option<f64>,
    pub reference_error: Option<f64>,
    /// How far apart the twins of a fit at several seeds put the figure, as a share of the
    /// drive's ([`super::seeds`]); none with one seed.
    pub spread: Option<f64>,
    /// The most a key the fit did not search moves the figure, at another value that fits
    /// the fitted figures as well as the twin ([`super::open`]).
    pub open: Option<Opened>,
}

impl TermRow {
    pub fn new(
        t: &Term,
        weight: f64,
        start: &Figures,
        twin: &Figures,
        reference: Option<&Figures>,
    ) -> TermRow {
        let drive = t.goal.value();
        TermRow {
            figure: t.figure.clone(),
            source: t.source.clone(),
            goal: t.goal_text(),
            drive,
            start: twin_value(t, start),
            twin: twin_value(t, twin),
            start_error: error(t, start),
            twin_error: error(t, twin),
            weight,
            reference: reference.and_then(|f| twin_value(t, f)),
            reference_error: reference.map(|f| error(t, f)),
            spread: None,
            open: None,
        }
    }
}

/// A start of a round of the search (the first round's, [`super::Space::starts`]; later
/// rounds', the last round's best and the drives across it): the keys that tell it from the
/// others and the best loss it reached exploring.
#[derive(Clone, Debug, Serialize)]
pub struct StartRow {
    pub keys: Vec<(String, String)>,
    pub loss: f64,
    pub went_on: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct FitReport {
    pub drive: String,
    pub from: String,
    /// The twin as a spec (what follows `sim:`).
    pub twin: String,
    pub seed: u64,
    pub params: Vec<ParamRow>,
    /// Keys not searched, and why.
    pub left_out: Vec<String>,
    /// Figures or claims of the target not used, and why.
    pub skipped: Vec<String>,
    pub loss_start: f64,
    pub loss_twin: f64,
    /// The drive the results came from, scored as the search could have found it.
    pub reference: Option<Reference>,
    pub fitted: Vec<TermRow>,
    pub held_out: Vec<TermRow>,
    /// The best loss after each generation: (evaluations, loss); screened when `screen` > 1.
    pub history: Vec<(usize, f64)>,
    /// The screen's factor: candidates ran on drives this many times smaller, with tests as
    /// many times shorter (1: at full length).
    pub screen: u32,
    /// With screening, the best full-length loss at the start and after each round.
    pub confirmed: Vec<(usize, f64)>,
    /// With screening, the drives run at full length to confirm them.
    pub finalists: usize,
    /// Each round's starts: the first round's, one per combination of outer choices, without
    /// and with a cache where the start has none; a later round's, the last one's best and
    /// the drives across it that lost (none where a round had one start).
    pub starts: Vec<Vec<StartRow>>,
    /// Runs of the twin's priced measurements that gave the prices' linear model (0: no
    /// prices fitted).
    pub price_runs: usize,
    /// Held-out figures in watts, as low and as high as prices that fit the fitted figures
    /// as well as the twin's make them.
    pub price_spreads: Vec<Spread>,
    /// The twin with each key not searched at its other values ([`super::open`]).
    pub alternatives: Vec<Alternative>,
    /// Drives the search evaluated (with several seeds, all of theirs).
    pub evaluations: usize,
    /// Drives the simulator refused during the search.
    pub invalid: usize,
    pub stopped: String,
    /// With several seeds, the time of them all.
    pub wall_s: f64,
    /// Where the simulation time went (the twin's seed's search).
    pub time: TimeSpent,
    /// With several seeds ([`super::seeds`]), each one's search; empty with one.
    pub seeds: Vec<SeedRun>,
}

/// The median of the twin's errors over `rows`, as a share.
pub fn median_error(rows: &[TermRow]) -> Option<f64> {
    let mut e: Vec<f64> = rows.iter().map(|r| r.twin_error).collect();
    if e.is_empty() {
        return None;
    }
    e.sort_by(f64::total_cmp);
    Some(e[e.len() / 2])
}

impl FitReport {
    /// The report as Markdown: what was fitted, how well, and what the twin predicts;
    /// `chart` is the loss history's picture, beside it.
    pub fn markdown(&self, chart: Option<&str>) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# Simulated twin of {}\n", self.drive);
        self.search_markdown(&mut s);
        let _ = writeln!(s, "The twin: `sim:{}`\n", self.twin);
        self.reference_markdown(&mut s);
        self.params_markdown(&mut s);
        if !self.left_out.is_empty() {
            s.push_str("\nNot searched:\n\n");
            for l in &self.left_out {
                let _ = writeln!(s, "- {l}");
            }
        }
        s.push_str("\n## Fitted figures\n\n");
        table(&mut s, &self.fitted);
        if !self.held_out.is_empty() {
            s.push_str("\n## Held-out figures (not fitted: predicted)\n\n");
            table(&mut s, &self.held_out);
            if let Some(m) = median_error(&self.held_out) {
                let _ = writeln!(s, "\nMedian held-out error: {:.1}%.", m * 100.0);
            }
            self.spreads_markdown(&mut s);
        }
        self.seeds_markdown(&mut s);
        self.open_markdown(&mut s);
        if !self.skipped.is_empty() {
            s.push_str("\n## Not used\n\n");
            for l in &self.skipped {
                let _ = writeln!(s, "- {l}");
            }
        }
        s.push_str("\n## Loss by evaluations\n\n");
        if let Some(chart) = chart {
            let _ = writeln!(s, "![the best loss by evaluations]({chart})\n");
        }
        s.push_str("| evaluations | best loss |\n|---|---|\n");
        for (n, l) in &self.history {
            let _ = writeln!(s, "| {n} | {l:.4} |");
        }
        if self.screen > 1 {
            s.push_str("\nConfirmed at full length:\n\n| evaluations | best loss |\n|---|---|\n");
            for (n, l) in &self.confirmed {
                let _ = writeln!(s, "| {n} | {l:.4} |");
            }
        }
        self.time_markdown(&mut s);
        s
    }

    /// How the fit searched: its drives and loss, the screen, each round's starts and the prices.
    fn search_markdown(&self, s: &mut String) {
        let _ = writeln!(
            s,
            "Fitted by `ssdlab sim fit` from `{}` with seed {}: {} simulated drives in {:.0} s ({}), {} refused by the simulator. Loss (weighted mean relative error of the fitted figures): {:.3} at the start, {:.3} for the twin.\n",
            self.from, self.seed, self.evaluations, self.wall_s, self.stopped, self.invalid, self.loss_start, self.loss_twin
        );
        if self.screen > 1 {
            let _ = writeln!(
                s,
                "The candidates were screened on drives {0} times smaller, with tests {0} times shorter, their figures corrected by the ratio of full-length to screened figures at the best drive confirmed so far; {1} finalists ran at full length, and the twin is the best of them. The loss history is the screened (corrected) loss; the confirmed losses are at full length.\n",
                self.screen,
                self.finalists
            );
        }
        let listed = |starts: &[StartRow]| -> String {
            let rows: Vec<String> = starts
                .iter()
                .map(|start| {
                    let keys: Vec<String> =
                        start.keys.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    let on = if start.went_on { " (went on)" } else { "" };
                    format!("`{}` {:.3}{on}", keys.join(","), start.loss)
                })
                .collect();
            rows.join(", ")
        };
        let at_full = if self.screen > 1 {
            ", at full length"
        } else {
            ""
        };
        if let Some(first) = self.starts.first().filter(|s| !s.is_empty()) {
            let _ = writeln!(
                s,
                "The first round searched from {} starts, one for each value of the keys no coordinate moves and, from a start without a pseudo-SLC cache, each without and with one, each exploring a share of the round before the best went on; the loss of the best drive each reached{at_full}: {}.\n",
                first.len(),
                listed(first),
            );
        }
        for (round, starts) in self.starts.iter().enumerate().skip(1) {
            if !starts.is_empty() {
                // What across moved: a cell given as known is not among them.
                let moved: Vec<&str> = [
                    ("cell", "the other NAND cell"),
                    ("slc_cache", "the cache the other way"),
                ]
                .into_iter()
                .filter(|(key, _)| starts.iter().any(|r| r.keys.iter().any(|(k, _)| k == key)))
                .map(|(_, what)| what)
                .collect();
                let _ = writeln!(
                    s,
                    "Round {} searched from the best drive so far and the drives across it that lost to it ({}), each exploring a share of the round before the best went on{at_full}: {}.\n",
                    round + 1,
                    moved.join(", "),
                    listed(starts),
                );
            }
        }
        if self.price_runs > 0 {
            let _ = writeln!(
                s,
                "The energy model's prices (its watts and joules) change nothing a drive does, so they were fitted after the rest, to the figures in watts, on a model linear in them from {} runs of the twin's power tests (at the start's prices and with each moved); prices the figures cannot tell apart stay as near the start as the figures allow. The loss history is of the other figures.\n",
                self.price_runs
            );
        }
    }

    /// The reference, where there is one: how it fits, and the keys that make it another drive.
    fn reference_markdown(&self, s: &mut String) {
        if let Some(r) = &self.reference {
            let _ = write!(
                s,
                "The reference, `{}` (the drive the results came from), measured with its own values of the searched keys and the start's of the others (`sim:{}`): ",
                r.drive, r.spec
            );
            match (r.loss, &r.refused) {
                (Some(loss), _) => {
                    let verdict = if loss < self.loss_twin && !r.outside.is_empty() {
                        "It fits better than the twin, but the space does not hold it (its values below): no search of this space could find it."
                    } else if loss < self.loss_twin {
                        "The space holds a drive that fits better than the twin: the search did not find it."
                    } else {
                        "The fitted figures prefer the twin: where it predicts worse than the reference, they cannot tell the two apart."
                    };
                    let _ = writeln!(
                        s,
                        "loss {loss:.3} on the fitted figures, the twin's {:.3}. {verdict} Where the reference misses a figure too, the keys not searched matter.\n",
                        self.loss_twin
                    );
                }
                (None, refused) => {
                    let _ = writeln!(
                        s,
                        "refused by the simulator ({}): the keys not searched make the drive.\n",
                        refused.as_deref().unwrap_or("no reason given")
                    );
                }
            }
        }
        if let Some(r) = &self.reference {
            let lists = [
                (
                    "Keys not searched that make the reference another drive than the start",
                    r.unsearched
                        .iter()
                        .map(|u| format!("`{}` {} (start {})", u.key, u.reference, u.start))
                        .collect::<Vec<_>>(),
                ),
                (
                    "Searched keys whose reference values the space does not hold",
                    r.outside
                        .iter()
                        .map(|o| format!("`{}` {} ({})", o.key, o.reference, o.why))
                        .collect(),
                ),
            ];
            for (heading, keys) in lists.iter().filter(|(_, keys)| !keys.is_empty()) {
                let _ = writeln!(s, "{heading}: {}.\n", keys.join("; "));
            }
        }
    }

    /// The table of the keys searched: the start's, the twin's, the reference's and the seeds' values.
    fn params_markdown(&self, s: &mut String) {
        let with_reference = self.reference.is_some();
        let with_seeds = !self.seeds.is_empty();
        let mut columns = vec!["key", "start", "twin"];
        if with_reference {
            columns.push("reference");
        }
        if with_seeds {
            columns.push("the seeds' twins");
        }
        let _ = writeln!(
            s,
            "## Parameters\n\n| {} |\n|{}",
            columns.join(" | "),
            "---|".repeat(columns.len())
        );
        for p in &self.params {
            let _ = write!(s, "| {} | {} | {} |", p.key, p.start, p.twin);
            if with_reference {
                let _ = write!(s, " {} |", p.reference.as_deref().unwrap_or("-"));
            }
            if with_seeds {
                let _ = write!(s, " {} |", p.seeds.join(" / "));
            }
            s.push('\n');
        }
    }

    /// Where the simulation time went, and the drives that took most of it.
    fn time_markdown(&self, s: &mut String) {
        let t = &self.time;
        if t.slowest.is_empty() {
            return;
        }
        let _ = writeln!(
            s,
            "\n## Where the time went\n\n{} measurements ran in {:.0} s of simulation (each measurement's seconds, summed over the threads that ran them; those read back from the evaluations file not counted): {} screened in {:.0} s, {} at full length in {:.0} s (the finalists, the prices' runs and the start's, the twin's and the reference's measurements). The slowest:\n\n| measurement | screen | seconds | drive |\n|---|---|---|---|",
            t.screened + t.full_length,
            t.screened_s + t.full_length_s,
            t.screened,
            t.screened_s,
            t.full_length,
            t.full_length_s
        );
        for m in &t.slowest {
            let screen = match m.screen {
                1 => "full length".to_string(),
                f => format!("1/{f}"),
            };
            let _ = writeln!(
                s,
                "| {} | {screen} | {:.1} | `sim:{}` |",
                m.measure.prefix(),
                m.seconds,
                m.spec
            );
        }
    }

    /// The seeds' twins: each one's loss, and which figures they agree on.
    fn seeds_markdown(&self, s: &mut String) {
        if self.seeds.is_empty() {
            return;
        }
        let _ = writeln!(
            s,
            "\n## Several seeds\n\nThe search ran at {} seeds; the twin is the lowest loss's, seed {}. A figure's spread in the tables above is how far apart the seeds' twins put it, as a share of the drive's. Where twins fitted to the same results disagree on a figure, the results did not lead the searches to one value of it: read the twin's figure as a draw, whatever its error here. Twins that agree may still share a mistake: a key the fit did not search is the start's in every seed (\"What the results leave open\" below moves each on the twin), and searches may miss alike.\n\n| seed | loss | held-out median error | wall time |\n|---|---|---|---|",
            self.seeds.len(),
            self.seed
        );
        for run in &self.seeds {
            let median = run
                .held_out_median
                .map_or("-".into(), |m| format!("{:.1}%", m * 100.0));
            let _ = writeln!(
                s,
                "| {} | {:.3} | {median} | {:.0} s |",
                run.seed, run.loss, run.wall_s
            );
        }
        let (fitted, held) = (agreement(&self.fitted), agreement(&self.held_out));
        let _ = write!(
            s,
            "\nThe twins agree within {:.0}% on {} of the {} fitted figures",
            AGREE * 100.0,
            fitted.agreed,
            fitted.agreed + fitted.disagreed
        );
        if held.agreed + held.disagreed > 0 {
            let _ = write!(
                s,
                " and {} of the {} held out; the twin meets {} of those {} within 10% of the drive, and {} of the other {}",
                held.agreed,
                held.agreed + held.disagreed,
                held.agreed_within,
                held.agreed,
                held.disagreed_within,
                held.disagreed
            );
        }
        s.push_str(".\n");
    }

    /// The twin with each key not searched set otherwise, and what each moves.
    fn open_markdown(&self, s: &mut String) {
        if self.alternatives.is_empty() {
            return;
        }
        let _ = writeln!(
            s,
            "\n## What the results leave open\n\nThe keys the fit did not search are the start's in the twin, whatever the drive has. The twin again with each at its other values, one at a time (through the search's screen, corrected to full length at the twin): where that drive fits the fitted figures as well as the twin (its loss within {:.2} of the twin's {:.3}), a figure it moves by more than {:.0}% of the drive's is one the results leave open, and the tables' \"open\" column names the key that moves it most. A key the fitted figures reject alone may still fit with other keys moved to make up for it: this finds what is surely open, not all that is.\n\n| the twin with | loss | as well | the figures it moves most |\n|---|---|---|---|",
            AS_WELL,
            self.loss_twin,
            AGREE * 100.0
        );
        for a in &self.alternatives {
            let loss = a.loss.map_or("refused".into(), |l| format!("{l:.3}"));
            let moves = match &a.refused {
                Some(why) => why.clone(),
                None => a
                    .moves
                    .iter()
                    .take(3)
                    .map(|(f, c)| format!("{f} {:.1}%", c * 100.0))
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            let as_well = if a.as_well { "yes" } else { "no" };
            let _ = writeln!(s, "| `{}` | {loss} | {as_well} | {moves} |", a.drive);
        }
    }

    /// What the prices leave open of the held-out figures in watts.
    fn spreads_markdown(&self, s: &mut String) {
        if self.price_spreads.is_empty() {
            return;
        }
        let _ = write!(s, "\n### What the prices leave open\n\nPrices that meet the fitted figures in watts as well as the twin's (their loss within {AS_WELL:.2} of its) put these held-out figures anywhere between:\n\n| figure | drive | twin | lowest | highest |\n|---|---|---|---|---|\n");
        let num = |v: Option<f64>| v.map_or("-".into(), fmt_num);
        for sp in &self.price_spreads {
            let row = self.held_out.iter().find(|r| r.figure == sp.figure);
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} |",
                sp.figure,
                num(row.and_then(|r| r.drive)),
                num(row.and_then(|r| r.twin)),
                fmt_num(sp.low),
                fmt_num(sp.high)
            );
        }
        s.push_str("\nA wide range is a prediction the fitted figures cannot make: they do not tell the prices it depends on apart (one load point does not split a load's watts between the controller and the NAND).\n");
    }
}

/// A table of terms; their source in a column when they have several (claims), else once.
fn table(s: &mut String, rows: &[TermRow]) {
    let one_source = rows.windows(2).all(|w| w[0].source == w[1].source);
    if let (true, Some(r)) = (one_source, rows.first()) {
        let _ = writeln!(s, "From {}.\n", r.source);
    }
    let with_reference = rows.iter().any(|r| r.reference_error.is_some());
    let mut columns = vec![
        "figure",
        "drive",
        "start",
        "twin",
        "start error",
        "twin error",
        "weight",
    ];
    if with_reference {
        columns.extend(["reference", "reference error"]);
    }
    let with_spread = rows.iter().any(|r| r.spread.is_some());
    if with_spread {
        columns.push("seeds' spread");
    }
    let with_open = rows.iter().any(|r| r.open.is_some());
    if with_open {
        columns.push("open: moved by");
    }
    if !one_source {
        columns.push("from");
    }
    let _ = writeln!(s, "| {} |", columns.join(" | "));
    let _ = writeln!(s, "|{}", "---|".repeat(columns.len()));
    let num = |v: Option<f64>| v.map_or("-".into(), fmt_num);
    for r in rows {
        let _ = write!(
            s,
            "| {} | {} | {} | {} | {:.1}% | {:.1}% | {:.2} |",
            r.figure,
            r.drive.map_or(r.goal.clone(), fmt_num),
            num(r.start),
            num(r.twin),
            r.start_error * 100.0,
            r.twin_error * 100.0,
            r.weight,
        );
        if with_reference {
            let error = r
                .reference_error
                .map_or("-".into(), |e| format!("{:.1}%", e * 100.0));
            let _ = write!(s, " {} | {error} |", num(r.reference));
        }
        if with_spread {
            let spread = r
                .spread
                .map_or("-".into(), |x| format!("{:.1}%", x * 100.0));
            let _ = write!(s, " {spread} |");
        }
        if with_open {
            let open = r.open.as_ref().map_or("-".into(), |o| {
                format!("{:.1}% `{}`", o.change * 100.0, o.by)
            });
            let _ = write!(s, " {open} |");
        }
        if !one_source {
            let _ = write!(s, " {} |", r.source);
        }
        s.push('\n');
    }
}

impl Fit {
    /// The twin's TOML file (`--target sim:FILE`): its preset, its keys, and where each came
    /// from; `report` is the fit report's path, which runs of the twin name.
    pub fn toml(&self, report: &str) -> String {
        let quote = |v: &str| toml::Value::String(v.to_string()).to_string();
        let r = &self.report;
        let mut s = format!(
            "# A simulated twin of {}, fitted by `ssdlab sim fit` from {} (seed {}, loss {:.3} from {:.3}).\n# The fit's report: {report}\n",
            r.drive, r.from, r.seed, r.loss_twin, r.loss_start
        );
        let _ = writeln!(s, "preset = {}", quote(&self.preset));
        let _ = writeln!(s, "fit_report = {}", quote(report));
        for (k, v) in &self.keys {
            let _ = writeln!(s, "{k} = {}", quote(v));
        }
        let sources: Vec<&str> = {
            let mut v: Vec<&str> = r.fitted.iter().map(|t| t.source.as_str()).collect();
            v.sort();
            v.dedup();
            v
        };
        s.push_str("\n[sources]\n");
        for k in &self.fitted {
            let _ = writeln!(
                s,
                "{k} = {}",
                quote(&format!(
                    "fitted by ssdlab sim fit to {} ({report})",
                    sources.join(", ")
                ))
            );
        }
        s
    }
}
