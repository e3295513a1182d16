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
    // The methodology fitted to a drive it cannot run on as written (a trace larger than
    // the drive): worth knowing, not a flaw, so not in the red banner.
    let fitted: Vec<(&str, String)> = results
        .iter()
        .flat_map(|r| r.adaptations.iter().map(|a| (r.label.as_str(), a.clone())))
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
                @if suite.is_some_and(|s| s.quick) {
                    "a quick run: every test ran scaled down, so no figure compares with the \
                     reviews'. "
                }
                (flawed.len()) " of " (results.len()) " results are incomplete or deviate from it, \
                 and their charts say so."
                // A long list (a quick suite's) is one click away rather than a screenful.
                @if flawed.len() > 5 {
                    details { summary { "Which, and how" } (listed(&flawed)) }
                } @else {
                    (listed(&flawed))
                }
            }
        }
        @if !fitted.is_empty() {
            div.fitted {
                b { "Fitted to this drive: " }
                "the methodology as written does not fit a drive this size, so it ran as it \
                 says for one (the figures compare with other drives; the label says how)."
                (listed(&fitted))
            }
        }
        (review.body())
    };
    page(&title, "ssdlab", None, body)
}

fn listed(items: &[(&str, String)]) -> maud::Markup {
    html! { ul { @for (label, why) in items { li { (label) ": " (why) } } } }
}

#[cfg(test)]
mod tests {
    use crate::db::tests::result;

    const XSS: &str = "<script>alert(1)</script>";

    #[test]
    fn user_text_is_escaped_and_deviations_are_shown() {
        let mut seq = result("seq-read", None, XSS, "2026-01-01T00:00:00Z", 100.0);
        seq.deviations = vec![format!("duration 20 s instead of 60 s {XSS}")];
        let mut c = result("consistency", None, XSS, "2026-01-01T00:00:00Z", 10.0);
        c.label = XSS.into();
        let html = super::render(&[seq, c], None);
        // The one script is the page's own, at the end.
        assert_eq!(html.matches("<script").count(), 1);
        assert!(!html.contains("<script>alert"));
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        // The deviation is in the banner and on the chart it concerns.
        assert!(html.contains("class=\"banner\""));
        assert!(html.contains("deviates: duration 20 s instead of 60 s"));
        assert!(html.contains("(deviates)"), "the bar's row is marked");
        // Each result's parameters point at the section that shows it.
        assert!(html.contains("(in <a href=\"#corners\">Four corners</a>)"));
        assert!(html.contains("<section id=\"corners\">"));
        for svg in html.match_indices("<svg").map(|(at, _)| &html[at..]) {
            let end = svg.find("</svg>").unwrap() + 6;
            roxmltree::Document::parse(&svg[..end]).unwrap();
        }
    }

    /// A quick run's consistency charts: what deviates said once, a short mark on each chart,
    /// and the window named for what it is, never "steady state".
    #[test]
    fn a_deviation_is_said_once_and_a_window_that_is_no_steady_state_says_so() {
        let mut c = result("consistency", None, "evo", "2026-01-01T00:00:00Z", 270.0);
        c.deviations = vec!["duration 60 s instead of 2000 s".into()];
        let mut a = c.consistency().unwrap().clone();
        (a.steady_from_s, a.reached) = (42.0, false);
        a.whole_run = a.steady_state.clone().map(|mut w| {
            w.count = 60;
            w
        });
        if let Some(w) = a.steady_state.as_mut() {
            w.count = 18;
        }
        c.analysis = suite::Analysis::Consistency(a);
        let html = super::render(&[c], None);
        let section = &html[html.find("<section id=\"consistency\">").unwrap()..];
        let section = &section[..section.find("</section>").unwrap()];
        assert_eq!(
            section.matches("duration 60 s instead of 2000 s").count(),
            1,
            "{section}"
        );
        assert!(
            section
                .matches("(deviates): see the note above the charts")
                .count()
                >= 3
        );
        assert!(section.contains("Not a steady state: the last 18 s of a 60 s run (log scale)"));
        assert!(!section.contains("Steady state from"), "{section}");
    }

    /// A Storage Bench trace scaled to a drive smaller than its span is the methodology
    /// fitted to the drive: said plainly, but no red banner and no "(deviates)" mark.
    #[test]
    fn a_trace_fitted_to_the_drive_is_a_note_not_a_deviation() {
        let mut sb = result(
            "storage-bench",
            None,
            "drive",
            "2026-01-01T00:00:00Z",
            100.0,
        );
        sb.adaptations = vec![format!("laid out on the target and scaled to 0.0716 {XSS}")];
        let html = super::render(&[sb.clone()], None);
        assert!(!html.contains("class=\"banner\""), "no red banner");
        assert!(!html.contains("(deviates)"));
        assert!(html.contains("class=\"fitted\""));
        assert!(html.contains("scaled to 0.0716 &lt;script&gt;"));
        // A real deviation beside it still raises the banner, listing only itself.
        sb.deviations = vec!["duration 20 s instead of 60 s".into()];
        let html = super::render(&[sb], None);
        assert!(html.contains("class=\"banner\""));
        assert!(html.contains("deviates: duration 20 s"));
    }
}
