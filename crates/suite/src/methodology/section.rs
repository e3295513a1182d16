//! Where a test's results are shown on the report and the Bench's page. The reviews had a
//! section for some tests, each charting one test or a few alike; a test's record names the
//! one it belongs in, and a test in none has a section of its own, drawn by its kind.

use super::TestId;

/// A reviews' section of the page, which charts the tests whose records name it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReviewSection {
    Consistency,
    /// The four corners: the group and its rows.
    Corners,
    SeqIncompressible,
    TransferSweep,
    SteadyState,
    Trim,
    /// The Storage Bench and `trace replay`'s results.
    StorageBench,
    /// Idle, slumber and the power under load.
    Power,
    Custom,
    Verify,
}

impl ReviewSection {
    /// Every one, in the page's order.
    pub const ALL: [ReviewSection; 10] = [
        ReviewSection::Consistency,
        ReviewSection::Corners,
        ReviewSection::SeqIncompressible,
        ReviewSection::TransferSweep,
        ReviewSection::SteadyState,
        ReviewSection::Trim,
        ReviewSection::StorageBench,
        ReviewSection::Power,
        ReviewSection::Custom,
        ReviewSection::Verify,
    ];

    /// Its id on the page: the name of the test it charts, or of the group it charts.
    pub const fn name(self) -> &'static str {
        match self {
            ReviewSection::Consistency => TestId::Consistency.name(),
            ReviewSection::Corners => TestId::Corners.name(),
            ReviewSection::SeqIncompressible => TestId::SeqIncompressible.name(),
            ReviewSection::TransferSweep => TestId::TransferSweep.name(),
            ReviewSection::SteadyState => TestId::SteadyState.name(),
            ReviewSection::Trim => TestId::Trim.name(),
            ReviewSection::StorageBench => TestId::StorageBench.name(),
            ReviewSection::Power => "power",
            ReviewSection::Custom => TestId::Custom.name(),
            ReviewSection::Verify => TestId::Verify.name(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A section named after a test charts that test.
    #[test]
    fn a_section_named_after_a_test_holds_it() {
        for s in ReviewSection::ALL {
            if let Ok(id) = s.name().parse::<TestId>() {
                assert_eq!(id.section(), Some(s), "{id}");
            }
        }
        let named = ReviewSection::ALL
            .iter()
            .filter(|s| s.name().parse::<TestId>().is_ok());
        assert_eq!(
            named.count(),
            ReviewSection::ALL.len() - 1,
            "power alone is no test's"
        );
    }
}
