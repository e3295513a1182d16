//! A review: the reviews' sections for one drive (the report) or many (the compare page),
//! with a table of contents. Charts that switch between drives and settings are
//! [`Fragment`]s: inline in a report, fetched on selection in the Bench.

use maud::{html, Markup};

use suite::methodology::Kind;
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
        let shown: Vec<(Section, Markup)> = Section::all()
            .filter_map(|s| s.render(self).map(|m| (s, m)))
            .collect();
        html! {
            nav { ul { @for (s, _) in &shown { li { a href={ "#" (s.anchor()) } { (s.title()) } } } } }
            @for (s, m) in &shown {
                section id=(s.anchor()) { h2 { (s.title()) } (m) }
            }
        }
    }
}

/// The page's sections, in order: the reviews' (each names the tests it charts), then one
/// per test the reviews had no section for, drawn by its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Section {
    Drives,
    Consistency,
    Corners,
    SeqIncompressible,
    TransferSweep,
    SteadyState,
    Trim,
    StorageBench,
    Power,
    Custom,
    Verify,
    /// A test no section above charts.
    Test(TestId),
    DriveCounters,
    Parameters,
}

impl Section {
    /// The sections before the tests' own.
    const REVIEWS: [Section; 11] = [
        Section::Drives,
        Section::Consistency,
        Section::Corners,
        Section::SeqIncompressible,
        Section::TransferSweep,
        Section::SteadyState,
        Section::Trim,
        Section::StorageBench,
        Section::Power,
        Section::Custom,
        Section::Verify,
    ];

    fn all() -> impl Iterator<Item = Section> {
        let own = TestId::ALL
            .iter()
            .map(|&t| Section::Test(t))
            .filter(|&s| Section::REVIEWS.iter().all(|r| !r.charts(s)));
        Section::REVIEWS
            .into_iter()
            .chain(own)
            .chain([Section::DriveCounters, Section::Parameters])
    }

    /// Where a test's results are shown: the reviews' section that charts it, else its own.
    pub(crate) fn of(test: TestId) -> Section {
        Section::REVIEWS
            .into_iter()
            .find(|s| s.charts(Section::Test(test)))
            .unwrap_or(Section::Test(test))
    }

    /// Whether this section charts the results of `test` (a [`Section::Test`]).
    fn charts(self, test: Section) -> bool {
        let Section::Test(test) = test else {
            return false;
        };
        match self {
            Section::Consistency => test == TestId::Consistency,
            Section::Corners => test == TestId::Corners || sections::bars::is_corner(test),
            Section::SeqIncompressible => test == TestId::SeqIncompressible,
            Section::TransferSweep => test == TestId::TransferSweep,
            Section::SteadyState => test == TestId::SteadyState,
            Section::Trim => test == TestId::Trim,
            Section::StorageBench => test.kind() == Kind::Replay,
            Section::Power => crate::power::is_power_test(test),
            Section::Custom => test == TestId::Custom,
            Section::Verify => test == TestId::Verify,
            Section::Drives | Section::Test(_) | Section::DriveCounters | Section::Parameters => {
                false
            }
        }
    }

    /// The section's id: a test's name where it shows one test.
    pub(crate) fn anchor(self) -> &'static str {
        match self {
            Section::Drives => "drives",
            Section::Consistency => TestId::Consistency.name(),
            Section::Corners => TestId::Corners.name(),
            Section::SeqIncompressible => TestId::SeqIncompressible.name(),
            Section::TransferSweep => TestId::TransferSweep.name(),
            Section::SteadyState => TestId::SteadyState.name(),
            Section::Trim => TestId::Trim.name(),
            Section::StorageBench => TestId::StorageBench.name(),
            Section::Power => "power",
            Section::Custom => TestId::Custom.name(),
            Section::Verify => TestId::Verify.name(),
            Section::Test(t) => t.name(),
            Section::DriveCounters => "drive-counters",
            Section::Parameters => "parameters",
        }
    }

    pub(crate) fn title(self) -> String {
        match self {
            Section::Drives => "Drive and test system",
            Section::Consistency => "Performance consistency",
            Section::Corners => "Four corners",
            Section::SeqIncompressible => "Incompressible sequential",
            Section::TransferSweep => "Performance vs transfer size",
            Section::SteadyState => "Steady-state random write",
            Section::Trim => "TRIM validation",
            Section::StorageBench => "Storage Bench",
            Section::Power => "Power",
            Section::Custom => "Custom workloads",
            Section::Verify => "Data verification",
            Section::Test(t) => return sections::by_kind::title(t),
            Section::DriveCounters => "The drive's own counters",
            Section::Parameters => "Parameters",
        }
        .to_string()
    }

    /// The section's content, when there are results for it.
    fn render(self, rv: &Review) -> Option<Markup> {
        match self {
            Section::Drives => sections::drive::section(rv),
            Section::Consistency => sections::consistency::section(rv),
            Section::Corners => sections::bars::corners(rv),
            Section::SeqIncompressible => sections::bars::seq_incompressible(rv),
            Section::TransferSweep => sections::sweep::section(rv),
            Section::SteadyState => sections::steady::section(rv),
            Section::Trim => sections::trim::section(rv),
            Section::StorageBench => sections::storage_bench::section(rv),
            Section::Power => sections::power::section(rv),
            Section::Custom => sections::custom::section(rv, TestId::Custom),
            Section::Verify => sections::verify::section(rv),
            Section::Test(t) => sections::by_kind::section(rv, t),
            Section::DriveCounters => sections::counters::section(rv),
            Section::Parameters => {
                (rv.mode == Mode::Report).then(|| sections::parameters::section(rv))
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
