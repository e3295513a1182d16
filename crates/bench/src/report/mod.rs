//! The review report: one self-contained HTML page (inline SVG charts, the page's small
//! script, no network) with every test of a results directory, the drive, the test system
//! and every parameter. `ssdlab report DIR` regenerates it. It is the Bench's comparison
//! page for one drive ([`crate::view`]).

use maud::html;

use suite::result::TestResult;
use suite::runner::SuiteRecord;

use crate::view::{caveat, page, Drive, Entry, Facts, Mode, Review};

/// Render the report of a results directory's results (and its suite record, if any).
pub fn render(results: &[TestResult], suite: Option<&SuiteRecord>) -> String {
    let first = results.first();
    let title = first
        .and_then(|r| r.target.model.clone())
        .unwrap_or_else(|| first.map_or("ssdlab report".into(), |r| r.target.path.clone()));
    let drive = Drive {
        id: None,
        label: title.clone(),
        index: 0,
        facts: first.map(Facts::of).unwrap_or_default(),
        entries: results
            .iter()
            .map(|r| Entry {
                id: None,
                result: r.clone(),
            })
            .collect(),
    };
    let drives = [drive];
    let review = Review {
        drives: &drives,
        mode: Mode::Report,
        suite,
    };
    let flawed: Vec<(&str, String)> = results
        .iter()
        .filter_map(|r| Some((r.label.as_str(), caveat(r)?)))
        .collect();
    let body = html! {
        h1 { (title) }
        p.sub {
            "ssdlab " (first.map_or("", |r| r.tool.version.as_str())) " review of "
            code { (first.map_or("", |r| r.target.path.as_str())) }
            @if let Some(s) = suite {
                ", started " (s.started_at)
                @if s.quick { ", " b { "quick mode" } " (scaled durations and regions)" }
                @if !s.complete { ", " b { "incomplete" } }
            }
        }
        @if !flawed.is_empty() {
            div.banner {
                b { "Not the methodology as written: " }
                "these results are incomplete or deviate from it, and their charts say so."
                ul { @for (label, why) in &flawed { li { (label) ": " (why) } } }
            }
        }
        (review.body())
    };
    page(&title, "ssdlab", None, body)
}
