//! The template layer: every HTML page ssdlab writes, from typed results, through `maud`
//! templates that escape by default. The report of a results directory is the comparison
//! page for one drive: both are a [`Review`] of [`Drive`]s, rendered section by section.
//! SVG charts come from [`crate::chart`], whose writer escapes by construction; they are
//! the only pre-escaped text placed here.
//!
//! The stylesheet and the one small script are asset files (`crates/bench/assets`),
//! inlined into every page so a report opens offline.

mod format;
mod review;
pub mod sections;
mod table;

pub use format::{capitalized, fixed, grouped, human_bytes};
pub(crate) use review::Section;
pub use review::{fragment, Fragment, Review};
pub use table::{Cell, Table};

use maud::{html, Markup, PreEscaped, DOCTYPE};

use suite::result::TestResult;
use suite::TestId;

use crate::chart::palette;

/// The page's stylesheet and script.
pub const STYLE: &str = include_str!("../../assets/style.css");
pub const SCRIPT: &str = include_str!("../../assets/bench.js");

/// Where links to a result's parameters go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A self-contained file: links go to the parameters section of the same page, and
    /// every chart is inline.
    Report,
    /// The Bench's web page: links go to `/result/ID`, and switchable charts beyond the
    /// first are fetched when selected.
    Web,
}

/// One result on a page, with its id in the Bench when it has one.
#[derive(Clone, Debug)]
pub struct Entry {
    pub id: Option<i64>,
    pub result: TestResult,
}

/// What is known of a drive besides its results: from `bench annotate`, else from what the
/// drive (or the simulator's preset) says about itself.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    pub model: Option<String>,
    pub firmware: Option<String>,
    pub capacity_bytes: u64,
    pub controller: Option<String>,
    pub nand: Option<String>,
    pub dram: Option<String>,
    pub price_usd: Option<f64>,
    pub notes: Option<String>,
}

impl Facts {
    /// The facts a result's target states about itself.
    pub fn of(r: &TestResult) -> Facts {
        let detail = |k: &str| r.target.details.get(k).cloned();
        Facts {
            model: r.target.model.clone(),
            firmware: r.target.firmware.clone(),
            capacity_bytes: r.target.capacity_bytes,
            controller: detail("controller"),
            nand: detail("nand"),
            dram: detail("dram"),
            price_usd: None,
            notes: None,
        }
    }

    /// Dollars per decimal gigabyte, as the reviews priced drives.
    pub fn price_per_gb(&self) -> Option<f64> {
        let gb = self.capacity_bytes as f64 / 1e9;
        self.price_usd.filter(|_| gb > 0.0).map(|p| p / gb)
    }
}

/// A drive on a page: what to call it, its colour (the same in every chart of the page),
/// its facts and results.
#[derive(Clone, Debug)]
pub struct Drive {
    pub label: String,
    /// Its position on the page, which gives its colour.
    pub index: usize,
    pub facts: Facts,
    pub entries: Vec<Entry>,
}

impl Drive {
    pub fn color(&self) -> &'static str {
        palette(self.index)
    }

    /// Its results of `test`, in order.
    pub fn of(&self, test: TestId) -> impl Iterator<Item = &Entry> + '_ {
        self.entries.iter().filter(move |e| e.result.test == test)
    }

    /// Its result of `test` and `variant`.
    pub fn find(&self, test: TestId, variant: Option<&str>) -> Option<&Entry> {
        self.entries
            .iter()
            .find(|e| e.result.test == test && e.result.variant.as_deref() == variant)
    }
}

/// What a reader must know about a result's figures before trusting them: incomplete, or
/// measured other than the methodology says. Shown on the chart itself.
pub fn caveat(r: &TestResult) -> Option<String> {
    let mut parts = Vec::new();
    if !r.complete {
        parts.push(format!("incomplete ({} s measured)", r.per_second.len()));
    }
    if !r.deviations.is_empty() {
        parts.push(format!("deviates: {}", r.deviations.join("; ")));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The [`caveat`] of a chart of several drives' results: a lone drive's or one all share, as
/// it is; else the drive that has one named with it; else (each drive's would fill the chart)
/// how many drives have one, each marked in the legend.
pub fn caveat_of_all<'a>(
    results: impl IntoIterator<Item = (&'a Drive, &'a TestResult)>,
) -> Option<String> {
    let all: Vec<(&Drive, Option<String>)> =
        results.into_iter().map(|(d, r)| (d, caveat(r))).collect();
    let flawed: Vec<&(&Drive, Option<String>)> = all.iter().filter(|(_, c)| c.is_some()).collect();
    match flawed.as_slice() {
        [] => None,
        [(_, c)] if all.len() == 1 => c.clone(),
        [(d, c), ..] if flawed.len() == 1 => Some(format!("{}: {}", d.label, c.as_deref()?)),
        [(_, c), ..] if flawed.len() == all.len() && flawed.iter().all(|(_, o)| o == c) => {
            Some(format!("every drive {}", c.as_deref()?))
        }
        _ => Some(format!(
            "{} of {} drives were not measured as the methodology says, marked (deviates) or \
             (incomplete): see their parameters",
            flawed.len(),
            all.len()
        )),
    }
}

/// A caveat of a section of several charts: said once at its head ([`SaidOnce::head`]),
/// each chart keeping a short mark of it ([`SaidOnce::mark`]), so a chart read alone still
/// warns without the same paragraph in red under every chart.
pub struct SaidOnce {
    text: String,
    mark: String,
}

impl SaidOnce {
    /// One result's [`caveat`].
    pub fn of(r: &TestResult) -> Option<SaidOnce> {
        Some(SaidOnce {
            text: caveat(r)?,
            mark: SaidOnce::marked(&[mark(r)?]),
        })
    }

    /// The caveat of drives' results on the same charts ([`caveat_of_all`]), each kind of
    /// [`mark`] among them in the charts' mark.
    pub fn of_all<'a>(
        results: impl IntoIterator<Item = (&'a Drive, &'a TestResult)>,
    ) -> Option<SaidOnce> {
        let results: Vec<(&Drive, &TestResult)> = results.into_iter().collect();
        let mut marks: Vec<&str> = results.iter().filter_map(|(_, r)| mark(r)).collect();
        marks.sort_unstable();
        marks.dedup();
        Some(SaidOnce {
            text: caveat_of_all(results)?,
            mark: SaidOnce::marked(&marks),
        })
    }

    fn marked(marks: &[&str]) -> String {
        format!("{}: see the note above the charts", marks.join(" or "))
    }

    /// The caveat in full, for the head of the section.
    pub fn head(&self) -> Markup {
        html! { p.bad { (self.text) } }
    }

    /// What each chart says of it.
    pub fn mark(&self) -> &str {
        &self.mark
    }
}

/// The short mark of a result that is incomplete or deviates from the methodology.
pub fn mark(r: &TestResult) -> Option<&'static str> {
    match (r.complete, r.deviations.is_empty()) {
        (true, true) => None,
        (false, _) => Some("(incomplete)"),
        (true, false) => Some("(deviates)"),
    }
}

/// A label with its result's [`mark`].
pub fn marked(label: &str, r: &TestResult) -> String {
    match mark(r) {
        Some(m) => format!("{label} {m}"),
        None => label.to_string(),
    }
}

/// A drive's name, marked like its result, for a table's first cell.
pub fn drive_cell(d: &Drive, r: &TestResult) -> Markup {
    html! { (sections::drive_name(d)) @if let Some(m) = mark(r) { " " span.bad { (m) } } }
}

/// A whole page: head with the stylesheet, an optional navigation bar, the body and the
/// script.
pub fn page(title: &str, site: &str, nav: Option<Markup>, body: Markup) -> String {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                link rel="icon" href="data:,";
                title { (title) " - " (site) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                @if let Some(nav) = nav { (nav) }
                (body)
                footer {
                    "Made by ssdlab. Throughput in MB/s = 10^6 bytes/s; capacities in GB = 10^9 bytes; \
                     block sizes and spans in KiB/MiB/GiB. Hover over a chart for its values."
                }
                script { (PreEscaped(SCRIPT)) }
            }
        }
    }
    .into_string()
}

/// An SVG chart from [`crate::chart`] in a figure.
pub fn figure(svg: String) -> Markup {
    html! { figure { (PreEscaped(svg)) } }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::tests::result;

    fn drive(label: &str, deviation: Option<&str>) -> (Drive, TestResult) {
        let mut r = result("seq-read", None, label, "2026-01-01T00:00:00Z", 100.0);
        r.deviations = deviation.map(|d| vec![d.to_string()]).unwrap_or_default();
        let d = Drive {
            label: label.into(),
            index: 0,
            facts: Facts::of(&r),
            entries: Vec::new(),
        };
        (d, r)
    }

    fn of(drives: &[(Drive, TestResult)]) -> Option<String> {
        caveat_of_all(drives.iter().map(|(d, r)| (d, r)))
    }

    /// Twenty drives' caveats on one chart would be a page of red text: one line says it.
    #[test]
    fn several_drives_caveats_are_said_in_one_line() {
        let small = "region 32 MiB instead of 256 MiB";
        assert_eq!(of(&[drive("A", None), drive("B", None)]), None);
        assert_eq!(
            of(&[drive("A", Some(small))]).as_deref(),
            Some("deviates: region 32 MiB instead of 256 MiB")
        );
        assert_eq!(
            of(&[drive("A", None), drive("B", Some(small))]).as_deref(),
            Some("B: deviates: region 32 MiB instead of 256 MiB")
        );
        let same: Vec<_> = (0..20)
            .map(|i| drive(&format!("D{i}"), Some(small)))
            .collect();
        assert_eq!(
            of(&same).as_deref(),
            Some("every drive deviates: region 32 MiB instead of 256 MiB")
        );
        let mixed = [
            drive("A", Some(small)),
            drive("B", Some("other")),
            drive("C", None),
        ];
        assert_eq!(
            of(&mixed).as_deref(),
            Some(
                "2 of 3 drives were not measured as the methodology says, marked (deviates) or \
                 (incomplete): see their parameters"
            )
        );
    }
}
