//! The section of a test the reviews had no section for, drawn by the kind of its results: a
//! new test of a kind that exists shows without a line here.

use maud::Markup;
use suite::methodology::Kind;
use suite::TestId;

use crate::view::review::Review;

/// The section's title: what the kind measures, and the test.
pub fn title(test: TestId) -> String {
    let what = match test.kind() {
        Kind::Summary => "Workload",
        Kind::Consistency => "Performance consistency",
        Kind::SteadyState => "Steady-state",
        Kind::TransferSweep => "Performance vs transfer size",
        Kind::Trim => "TRIM validation",
        Kind::Replay => "Trace replay",
        Kind::Verify => "Data verification",
        Kind::IdlePower | Kind::SlumberPower | Kind::LoadPower => "Power",
        Kind::Saturation => "Write saturation",
        Kind::Fill => "Whole-drive fill",
        Kind::Pts => "SNIA PTS",
        Kind::Recovery => "SNIA PTS recovery",
        Kind::Steps => "Queue depths and mixes",
        Kind::Wake => "Idle wake-up latency",
    };
    format!("{what} ({test})")
}

/// The results of `test`, when there are any.
pub fn section(rv: &Review, test: TestId) -> Option<Markup> {
    match test.kind() {
        // Every result has a summary and IOPS per second: a table and the curves.
        Kind::Summary
        | Kind::Consistency
        | Kind::SteadyState
        | Kind::TransferSweep
        | Kind::Trim
        | Kind::Replay
        | Kind::Verify
        | Kind::IdlePower
        | Kind::SlumberPower
        | Kind::LoadPower => super::custom::section(rv, test),
        Kind::Saturation => super::saturation::section(rv, test),
        Kind::Fill => super::fill::section(rv, test),
        Kind::Pts => super::pts::section(rv, test),
        Kind::Recovery => super::recovery::section(rv, test),
        Kind::Steps => super::steps::section(rv, test),
        Kind::Wake => super::wake::section(rv, test),
    }
}
