//! A result that deviates from the methodology says so once in its section, however many
//! charts the section draws of it; each chart keeps a short mark pointing there.

use suite::saturation::{Round, SaturationAnalysis};
use suite::Analysis;

use crate::common::result;

const DEVIATION: &str = "duration 600 s instead of 6000 s";

/// The section whose id is `id`.
fn section<'a>(html: &'a str, id: &str) -> &'a str {
    let start = html
        .find(&format!("<section id=\"{id}\">"))
        .unwrap_or_else(|| panic!("no section {id}"));
    let section = &html[start..];
    &section[..section.find("</section>").unwrap()]
}

#[test]
fn a_deviating_result_is_said_once_in_a_section_of_several_charts() {
    let mut wsat = result("wsat", None, "evo", "2026-01-01T00:00:00Z", 100.0);
    wsat.analysis = Analysis::Saturation(SaturationAnalysis {
        bound_bytes: 4_000_000_000,
        rounds: (1..=3)
            .map(|i| Round {
                end_s: 60.0 * i as f64,
                iops: 1000.0 / i as f64,
                tgbw: i as f64,
            })
            .collect(),
    });
    let mut consistency = result("consistency", None, "evo", "2026-01-01T00:00:00Z", 10.0);
    for r in [&mut wsat, &mut consistency] {
        r.deviations = vec![DEVIATION.into()];
    }
    let html = bench::report::render(&[wsat, consistency], None);
    for id in ["wsat", "consistency"] {
        let s = section(&html, id);
        assert_eq!(s.matches(DEVIATION).count(), 1, "{id}: {s}");
        let marks = s
            .matches("(deviates): see the note above the charts")
            .count();
        assert!(marks >= 2, "{id}: {marks} charts marked\n{s}");
    }
}
