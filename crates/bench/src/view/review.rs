//! A review: the reviews' sections for one drive (the report) or many (the compare page),
//! with a table of contents. Charts that switch between drives and settings are
//! [`Fragment`]s: inline in a report, fetched on selection in the Bench.

use maud::{html, Markup};

use suite::methodology::ReviewSection;
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

/// The page's sections, in order: the reviews' (each charts the tests whose records name it),
/// then one per test the reviews had no section for, drawn by its kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Section {
    Drives,
    Review(ReviewSection),
    /// A test whose record names no reviews' section.
    Test(TestId),
    DriveCounters,
    Parameters,
}

impl Section {
    fn all() -> impl Iterator<Item = Section> {
        let own = TestId::ALL
            .iter()
            .filter(|t| t.section().is_none())
            .map(|&t| Section::Test(t));
        [Section::Drives]
            .into_iter()
            .chain(ReviewSection::ALL.map(Section::Review))
            .chain(own)
            .chain([Section::DriveCounters, Section::Parameters])
    }

    /// Where a test's results are shown: the reviews' section its record names, else its own.
    pub(crate) fn of(test: TestId) -> Section {
        test.section().map_or(Section::Test(test), Section::Review)
    }

    /// The section's id: a test's name where it shows one test.
    pub(crate) fn anchor(self) -> &'static str {
        match self {
            Section::Drives => "drives",
            Section::Review(s) => s.name(),
            Section::Test(t) => t.name(),
            Section::DriveCounters => "drive-counters",
            Section::Parameters => "parameters",
        }
    }

    pub(crate) fn title(self) -> String {
        let review = |s| match s {
            ReviewSection::Consistency => "Performance consistency",
            ReviewSection::Corners => "Four corners",
            ReviewSection::SeqIncompressible => "Incompressible sequential",
            ReviewSection::TransferSweep => "Performance vs transfer size",
            ReviewSection::SteadyState => "Steady-state random write",
            ReviewSection::Trim => "TRIM validation",
            ReviewSection::StorageBench => "Storage Bench",
            ReviewSection::Power => "Power",
            ReviewSection::Custom => "Custom workloads",
            ReviewSection::Verify => "Data verification",
        };
        match self {
            Section::Drives => "Drive and test system",
            Section::Review(s) => review(s),
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
            Section::Review(s) => review_section(s, rv),
            Section::Test(t) => sections::by_kind::section(rv, t),
            Section::DriveCounters => sections::counters::section(rv),
            Section::Parameters => {
                (rv.mode == Mode::Report).then(|| sections::parameters::section(rv))
            }
        }
    }
}

/// A reviews' section's content, when there are results for it.
fn review_section(s: ReviewSection, rv: &Review) -> Option<Markup> {
    match s {
        ReviewSection::Consistency => sections::consistency::section(rv),
        ReviewSection::Corners => sections::bars::corners(rv),
        ReviewSection::SeqIncompressible => sections::bars::seq_incompressible(rv),
        ReviewSection::TransferSweep => sections::sweep::section(rv),
        ReviewSection::SteadyState => sections::steady::section(rv),
        ReviewSection::Trim => sections::trim::section(rv),
        ReviewSection::StorageBench => sections::storage_bench::section(rv),
        ReviewSection::Power => sections::power::section(rv),
        ReviewSection::Custom => sections::custom::section(rv, TestId::Custom),
        ReviewSection::Verify => sections::verify::section(rv),
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

#[cfg(test)]
mod tests {
    use super::*;
    use suite::methodology::Kind;

    /// The sections that draw several tests find theirs by their own lists (the corners' rows,
    /// the power tests, the replays): each of those tests' records names that section, and
    /// no other test's does, or it would be listed where nothing draws it.
    #[test]
    fn a_test_is_in_the_section_that_draws_it() {
        for &t in TestId::ALL {
            let corner = t == TestId::Corners || sections::bars::is_corner(t);
            let in_section = |s| t.section() == Some(s);
            assert_eq!(corner, in_section(ReviewSection::Corners), "{t}");
            assert_eq!(
                crate::power::is_power_test(t),
                in_section(ReviewSection::Power),
                "{t}"
            );
            assert_eq!(
                t.kind() == Kind::Replay,
                in_section(ReviewSection::StorageBench),
                "{t}"
            );
        }
    }
}
