//! What the terminal says of a SNIA PTS result: its answer (the spec's figure for the test
//! over the measurement window) and whether steady state was reached, since the summary
//! row's figures are only the last round of its tracking stimulus.

use suite::pts::{PtsAnalysis, Sequence};
use suite::recovery::RecoveryAnalysis;

/// The notes under a PTS test's row: each sequence's verdict, and what the row is.
pub fn lines(a: &PtsAnalysis) -> Vec<String> {
    let mut lines: Vec<String> = (a.sequences.iter()).map(verdict).collect();
    if let Some(last) = a.sequences.last().filter(|s| s.rounds > 0) {
        lines.push(format!(
            "the row above is the last round of {}, not the test's figure",
            last.tracking_cell().stimulus.label()
        ));
    }
    lines
}

/// The notes under a recovery test's row: whether the steady state it starts from held, and
/// the test's answer, each segment's mean and how soon it settled (the row above is only the
/// last segment's IO).
pub fn recovery_lines(a: &RecoveryAnalysis) -> Vec<String> {
    let baseline = a
        .steady_state
        .iter()
        .map(|s| format!("the baseline before the wait states: {}", verdict(s)));
    let unit = a.figure.unit();
    let segments = a.segments.iter().map(|s| {
        let settled = s
            .settled_s
            .map_or(String::new(), |t| format!(", settled after {t:.0} s"));
        format!("{}: {:.0} {unit}{settled}", s.label, s.value(a.figure))
    });
    baseline.chain(segments).collect()
}

/// A sequence's answer over the window and whether steady state was reached.
fn verdict(s: &Sequence) -> String {
    match s.rounds {
        0 => format!("{}: {}", s.tracking_cell().stimulus.label(), s.verdict()),
        _ => format!("{} over the window; {}", s.answer(), s.verdict()),
    }
}
