//! A review: the reviews' sections for one drive (the report) or many (the compare page),
//! with a table of contents. Charts that switch between drives and settings are
//! [`Fragment`]s: inline in a report, fetched on selection in the Bench.

use maud::{html, Markup};

use suite::runner::SuiteRecord;
use suite::TestId;

use super::sections;
use super::{Drive, Entry, Mode};

pub struct Review<'a> {
    pub drives: &'a [Drive],
    pub mode: Mode,
    /// The suite record of a report's results directory.
    pub suite: Option<&'a SuiteRecord>,
}

impl Review<'_> {
    /// Where the parameters of a result are shown.
    pub fn link(&self, e: &Entry) -> Option<String> {
        match self.mode {
            Mode::Web => e.id.map(|id| format!("/result/{id}")),
            Mode::Report => Some(format!("#{}", sections::parameters::anchor(&e.result))),
        }
    }

    /// More than one drive: tables get a drive column, charts a drive selector.
    pub fn multi(&self) -> bool {
        self.drives.len() > 1
    }

    /// The table of contents and every section that has results; a test's section is
    /// anchored at its name.
    pub fn body(&self) -> Markup {
        let all: Vec<(&str, &str, Option<Markup>)> = vec![
            (
                "drives",
                "Drive and test system",
                sections::drive::section(self),
            ),
            (
                TestId::Consistency.name(),
                "Performance consistency",
                sections::consistency::section(self),
            ),
            (
                TestId::Corners.name(),
                "Four corners",
                sections::bars::corners(self),
            ),
            (
                TestId::SeqIncompressible.name(),
                "Incompressible sequential",
                sections::bars::seq_incompressible(self),
            ),
            (
                TestId::TransferSweep.name(),
                "Performance vs transfer size",
                sections::sweep::section(self),
            ),
            (
                TestId::SteadyState.name(),
                "Steady-state random write",
                sections::steady::section(self),
            ),
            (
                TestId::Trim.name(),
                "TRIM validation",
                sections::trim::section(self),
            ),
            (
                TestId::StorageBench.name(),
                "Storage Bench",
                sections::storage_bench::section(self),
            ),
            ("power", "Power", sections::power::section(self)),
            (
                TestId::Custom.name(),
                "Custom workloads",
                sections::custom::section(self),
            ),
            (
                TestId::Verify.name(),
                "Data verification",
                sections::verify::section(self),
            ),
            (
                "drive-counters",
                "The drive's own counters",
                sections::counters::section(self),
            ),
            (
                "parameters",
                "Parameters",
                (self.mode == Mode::Report).then(|| sections::parameters::section(self)),
            ),
        ];
        let shown: Vec<(&str, &str, Markup)> = all
            .into_iter()
            .filter_map(|(id, title, m)| m.map(|m| (id, title, m)))
            .collect();
        html! {
            nav { ul { @for (id, title, _) in &shown { li { a href={ "#" (id) } { (title) } } } } }
            @for (id, title, m) in &shown {
                section id=(id) { h2 { (title) } (m) }
            }
        }
    }
}

/// The charts that a selector switches between, one result's each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fragment {
    Consistency,
    Trim,
    SteadyState,
    /// The power test's sequential write, with its tail.
    Power,
}

impl Fragment {
    pub fn name(self) -> &'static str {
        match self {
            Fragment::Consistency => TestId::Consistency.name(),
            Fragment::Trim => TestId::Trim.name(),
            Fragment::SteadyState => TestId::SteadyState.name(),
            Fragment::Power => "power",
        }
    }

    pub fn from_name(name: &str) -> Option<Fragment> {
        [
            Fragment::Consistency,
            Fragment::Trim,
            Fragment::SteadyState,
            Fragment::Power,
        ]
        .into_iter()
        .find(|f| f.name() == name)
    }
}

/// The charts of one result, as a switcher shows them.
pub fn fragment(kind: Fragment, rv: &Review, d: &Drive, e: &Entry) -> Markup {
    match kind {
        Fragment::Consistency => sections::consistency::charts(rv, d, e),
        Fragment::Trim => sections::trim::charts(rv, d, e),
        Fragment::SteadyState => sections::steady::charts(rv, d, e),
        Fragment::Power => sections::power::charts(rv, d, e),
    }
}
