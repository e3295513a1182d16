//! Power as the reviews charted it: a bar per drive for idle (W), slumber with HIPM+DIPM
//! (mW), sequential and random write (W), lowest best; a table of every figure (mean, min,
//! max, performance per watt, the sequential write's first 30 s, the rest and the tail,
//! the link power setting); and one drive's sequential write second by second, the tail
//! after the writes included. [`beneath`] puts a result's per-second power under any
//! per-second chart, on the same time axis.
//!
//! A figure that was not measured says so (modelled by the simulator, estimated from the
//! NVMe power-state table) in its bar's label and hover text; a missing one is written
//! "missing" with its reason, never drawn as 0 W.

use maud::{html, Markup};

use engine::power::Basis;
use engine::units;
use suite::result::TestResult;
use suite::TestId;

use crate::chart::{Axis, NumberFormat, Series, XYChart};
use crate::compare::Better;
use crate::power::{self, Reading};
use crate::view::review::{Fragment, Review};
use crate::view::{caveat, drive_cell, figure, fixed, grouped, Cell, Drive, Entry, Table};

use super::bars::{bar_figure, BarRowSrc};
use super::{drive_dim, parameters_link, sources, switcher, views_by_drive};

/// One of the reviews' power charts.
struct PowerChart {
    title: &'static str,
    test: TestId,
    unit: &'static str,
    /// From watts to the chart's unit.
    scale: f64,
    decimals: u8,
}

const CHARTS: [PowerChart; 4] = [
    PowerChart {
        title: "Drive Power Consumption - Idle",
        test: TestId::PowerIdle,
        unit: "W",
        scale: 1.0,
        decimals: 2,
    },
    PowerChart {
        title: "SSD Slumber Power (HIPM+DIPM)",
        test: TestId::PowerSlumber,
        unit: "mW",
        scale: 1000.0,
        decimals: 0,
    },
    PowerChart {
        title: "Drive Power Consumption - Sequential Write",
        test: TestId::PowerSeqWrite,
        unit: "W",
        scale: 1.0,
        decimals: 2,
    },
    PowerChart {
        title: "Drive Power Consumption - Random Write",
        test: TestId::PowerRandomWrite,
        unit: "W",
        scale: 1.0,
        decimals: 2,
    },
];

/// A drive's row label: its name, and how the figure was obtained when not measured.
fn row_label(d: &Drive, basis: Option<Basis>) -> String {
    match basis {
        Some(b @ (Basis::Model | Basis::Estimate)) => format!("{} ({})", d.label, b.word()),
        _ => d.label.clone(),
    }
}

fn bars(rv: &Review, c: &PowerChart) -> Markup {
    let rows: Vec<BarRowSrc> = rv
        .drives
        .iter()
        .filter_map(|d| {
            let e = d.find(c.test, None).or_else(|| d.of(c.test).next())?;
            let reading = Reading::of(&e.result);
            let value = reading.mean_w.map_or(f64::NAN, |w| w * c.scale);
            let note = match (reading.mean_w, reading.basis) {
                (None, _) => format!(
                    "missing: {}",
                    reading.missing.as_deref().unwrap_or("no reading")
                ),
                (Some(_), Some(b)) => format!("mean; {}", b.sentence()),
                (Some(_), None) => "mean".to_string(),
            };
            let note = match &reading.note {
                Some(n) => format!("{note}; {n}"),
                None => note,
            };
            Some(BarRowSrc {
                drive: d,
                label: row_label(d, reading.basis),
                values: vec![value],
                entries: vec![Some(e)],
                note: Some(note),
            })
        })
        .collect();
    bar_figure(
        rv,
        c.title,
        c.unit,
        Better::Lower,
        &[],
        NumberFormat::Fixed(c.decimals),
        rows,
    )
}

/// A cell of watts, or why there are none.
fn watts(v: Option<f64>) -> Cell {
    Cell::Num(v.filter(|v| v.is_finite()).map_or("–".into(), units::watts))
}

fn state_name(test: TestId) -> &'static str {
    match test {
        TestId::PowerIdle => "idle",
        TestId::PowerSlumber => "slumber (HIPM+DIPM)",
        TestId::PowerSeqWrite => "128 KiB sequential write",
        TestId::PowerRandomWrite => "4 KiB random write",
        _ => "",
    }
}

/// The link power setting a test found, set and put back.
fn link_cell(a: Option<&power::PowerAnalysis>) -> Markup {
    let Some(l) = a.and_then(|a| a.link_power.as_ref()) else {
        return html! { "–" };
    };
    html! {
        @if let Some(c) = &l.control { code { (c) } ": " }
        "found " (l.found.as_deref().unwrap_or("–"))
        ", set " (l.set.as_deref().unwrap_or("(left as found)"))
        ", " @if l.restored { span.ok { "restored" } } @else { span.bad { "not restored" } }
        @if let Some(n) = &l.note { " (" (n) ")" }
    }
}

/// The figures of every power result.
fn table(rv: &Review, results: &[(&Drive, &Entry)]) -> Table {
    let mut t = Table::new(&[
        "drive",
        "state",
        "basis",
        "mean",
        "min",
        "max",
        "MB/s per W",
        "IOPS per W",
        "link power",
        "missing, partial or averaged",
        "",
    ]);
    for (d, e) in results {
        let r = &e.result;
        let reading = Reading::of(r);
        let a = power::analysis(r);
        t.row(vec![
            drive_cell(d, r).into(),
            state_name(r.test).into(),
            // A missing figure has no basis, whatever its meter was.
            match reading.basis.filter(|_| reading.mean_w.is_some()) {
                Some(Basis::Measured) => html! { "measured" },
                Some(b) => html! { span.bad title=(b.sentence()) { (b.word()) } },
                None => html! { "–" },
            }
            .into(),
            match reading.mean_w {
                Some(w) => Cell::Num(units::watts(w)),
                None => Cell::Markup(html! { span.bad { "missing" } }),
            },
            watts(reading.min_w),
            watts(reading.max_w),
            Cell::Num(fixed(a.and_then(|a| a.mbps_per_w), 1)),
            Cell::Num(grouped(a.and_then(|a| a.iops_per_w), 0)),
            link_cell(a).into(),
            [&reading.missing, &reading.note]
                .into_iter()
                .flatten()
                .cloned()
                .collect::<Vec<_>>()
                .join("; ")
                .into(),
            super::parameters_link(rv, e).into(),
        ]);
    }
    t
}

/// The sequential write's first 30 s, the rest and the tail, per drive.
fn seq_write_table(rv: &Review) -> Option<Table> {
    let mut t = Table::new(&[
        "drive",
        "first 30 s",
        "after 30 s",
        "burst ends at",
        "until then",
        "after it",
        "tail (60 s after the writes)",
        "",
    ]);
    for d in rv.drives {
        for e in d.of(TestId::PowerSeqWrite) {
            let a = power::analysis(&e.result);
            let get = |f: fn(&power::PowerAnalysis) -> Option<f64>| watts(a.and_then(f));
            t.row(vec![
                drive_cell(d, &e.result).into(),
                get(|a| a.first_30s_w),
                get(|a| a.after_30s_w),
                Cell::Num(
                    a.and_then(|a| a.burst_s)
                        .map_or("–".into(), |t| format!("{t} s")),
                ),
                get(|a| a.burst_w),
                get(|a| a.after_burst_w),
                get(|a| a.tail_w),
                parameters_link(rv, e).into(),
            ]);
        }
    }
    (!t.is_empty()).then_some(t)
}

/// The per-second power of `r` (and `tail`, the seconds after its measured phase) under
/// `main`, a chart of the same result over time: the same width and plot edges, so a
/// second here is the second above. Nothing when no second has power. A second without
/// power is a gap, never 0 W.
pub fn beneath(main: &XYChart, d: &Drive, r: &TestResult, tail: &[Option<f64>]) -> Option<Markup> {
    let run: Vec<(f64, f64)> = r
        .per_second
        .iter()
        .map(|p| (p.t as f64, p.watts.unwrap_or(f64::NAN)))
        .collect();
    let end = r.per_second.last().map_or(0.0, |p| p.t as f64 + 1.0);
    let after: Vec<(f64, f64)> = tail
        .iter()
        .enumerate()
        .map(|(i, w)| (end + i as f64, w.unwrap_or(f64::NAN)))
        .collect();
    if !run.iter().chain(&after).any(|p| p.1.is_finite()) {
        return None;
    }
    let lay = main.layout();
    let phase = r.power.as_ref();
    let subtitle = match phase.map(|p| p.basis) {
        Some(b) => format!("{}: {}", d.label, b.sentence()),
        None => d.label.clone(),
    };
    let missing = phase.and_then(|p| p.missing.as_ref()).map(|m| {
        format!(
            "power missing from {:.0} s (a gap, not 0 W): {}",
            m.from_s, m.reason
        )
    });
    // What was done to the readings (a meter too fast averaged), as the terminal says it.
    let said: Vec<String> = missing
        .into_iter()
        .chain(phase.and_then(|p| p.note.clone()))
        .collect();
    let warning = (!said.is_empty()).then(|| said.join("; "));
    let mut c = XYChart::new(
        "Power",
        main.x.clone(),
        Axis::linear("W").include_zero(true),
    )
    .size(main.width, 220.0)
    .align_x(lay.plot.x, lay.plot.right())
    .subtitle(&subtitle)
    .warning(warning.as_deref())
    .series(Series::line(&format!("{} (W)", d.label), run).color(d.color()));
    if after.iter().any(|p| p.1.is_finite()) {
        c.push(Series::line("after the writes (tail)", after).color("#8c8c8c"));
    }
    // Marked, so a page's checks can tell it from the charts it sits under.
    Some(html! { figure.power { (maud::PreEscaped(c.to_svg())) } })
}

/// One drive's sequential write second by second: MB/s, and under it the power through
/// the writes and the tail after them.
pub fn charts(rv: &Review, d: &Drive, e: &Entry) -> Markup {
    let r = &e.result;
    let a = power::analysis(r);
    let tail = a.map_or(&[][..], |a| a.tail_watts.as_slice());
    let seconds = r.per_second.len() + tail.len();
    let main = XYChart::new(
        "128 KiB sequential write, QD32: MB/s and power",
        Axis::linear("Time (s)").range(0.0, (seconds as f64).max(1.0)),
        Axis::linear("MB/s").include_zero(true),
    )
    .size(560.0, 300.0)
    .subtitle(&d.label)
    .warning(caveat(r).as_deref())
    .series(
        Series::line(
            &d.label,
            r.per_second
                .iter()
                .filter(|p| p.covered_s.is_none())
                .map(|p| (p.t as f64, p.mbps)),
        )
        .color(d.color()),
    );
    let power = beneath(&main, d, r, tail);
    html! {
        div {
            (figure(main.to_svg()))
            @match power {
                Some(p) => (p),
                None => p.note {
                    "No power reading in this run: "
                    (Reading::of(r).missing.unwrap_or_else(|| "no reason recorded".into()))
                },
            }
        }
        (sources(rv, &[(d.label.clone(), e)]))
    }
}

pub fn section(rv: &Review) -> Option<Markup> {
    let results: Vec<(&Drive, &Entry)> = rv
        .drives
        .iter()
        .flat_map(|d| {
            d.entries
                .iter()
                .filter(|e| power::is_power_test(e.result.test))
                .map(move |e| (d, e))
        })
        .collect();
    if results.is_empty() {
        return None;
    }
    let charts: Vec<Markup> = CHARTS
        .iter()
        .map(|c| bars(rv, c))
        .filter(|m| !m.0.is_empty())
        .collect();
    let views = views_by_drive(rv, TestId::PowerSeqWrite);
    let dims = [drive_dim(views.iter().map(|v| v.1))];
    Some(html! {
        p.note {
            "The drive's mean power, lowest best: idle after 60 s of rest with link power \
             management off, slumber with it on (SATA HIPM+DIPM, NVMe APST), and under 60 s of \
             128 KiB sequential and 4 KiB random writes at QD32. A drive marked (modelled) is the \
             simulator's energy model and one marked (estimate) the drive's NVMe power-state \
             table: neither is a measurement. A drive without a reading is marked missing, \
             with the reason on hover and in the table."
        }
        div.charts { @for c in &charts { (c) } }
        (table(rv, &results))
        @if let Some(t) = seq_write_table(rv) {
            h3 { "Sequential write: the first 30 s, the burst, the rest, and the tail" }
            p.note {
                "An SLC cache absorbs the first seconds of a sequential write; the burst ends where \
                 throughput falls, or power rises, for good (the consistency drop rule). A drive \
                 may go on folding the cache into TLC for a minute after the writes stop (the \
                 tail), drawing power while idle to the host."
            }
            (t)
        }
        @if !views.is_empty() {
            (switcher(rv, Fragment::Power, &dims, &views))
        }
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use engine::power::{MissingPower, PhasePower, PowerSummary};

    use super::*;
    use crate::db::tests::result;
    use crate::view::{Facts, Mode};

    /// A power test's result: its mean (None: missing, with `missing` its reason), basis,
    /// and the watts of its seconds.
    pub(crate) fn power_result(
        test: &str,
        model: &str,
        mean_w: Option<f64>,
        basis: Basis,
        missing: Option<&str>,
        seconds: &[Option<f64>],
    ) -> TestResult {
        let mut r = result(test, None, model, "2026-01-01T00:00:00Z", 400.0);
        let state = test.trim_start_matches("power-");
        let write = state.ends_with("write");
        r.per_second = seconds
            .iter()
            .enumerate()
            .map(|(t, w)| {
                let mut p = r.per_second[0].clone();
                p.t = t as u64;
                p.watts = *w;
                p
            })
            .collect();
        let stored = serde_json::json!({
            "state": state,
            "mean_w": mean_w, "min_w": mean_w.map(|w| w * 0.9), "max_w": mean_w.map(|w| w * 1.1),
            "basis": mean_w.map(|_| basis),
            "mbps_per_w": mean_w.filter(|_| write).map(|w| 400.0 / w),
            "iops_per_w": mean_w.filter(|_| write).map(|w| 3200.0 / w),
            "first_30s_w": mean_w.filter(|_| state == "seq-write").map(|w| w * 1.2),
            "after_30s_w": mean_w.filter(|_| state == "seq-write").map(|w| w * 0.8),
            "tail_w": mean_w.filter(|_| state == "seq-write").map(|w| w * 0.5),
            "tail_watts": if state == "seq-write" { vec![mean_w.map(|w| w * 0.5); 3] } else { vec![] },
            "link_power": if write { serde_json::Value::Null } else {
                serde_json::json!({"control": "sim:link_pm", "found": "off",
                    "set": if state == "slumber" { "on" } else { "off" }, "restored": true, "note": null})
            },
            "missing": missing,
        });
        r.analysis = suite::Analysis::parse(r.test, stored).unwrap();
        r.power = Some(PhasePower {
            source: if basis == Basis::Model {
                "sim"
            } else {
                "meter"
            }
            .into(),
            basis,
            description: "test".into(),
            summary: mean_w.map(|w| PowerSummary {
                mean_w: w,
                min_w: w * 0.9,
                max_w: w * 1.1,
                readings: seconds.len(),
                window_s: seconds.len() as f64,
                covered_s: seconds.len() as f64,
                basis,
            }),
            energy_j: None,
            missing: missing.map(|m| MissingPower {
                from_s: 0.0,
                reason: m.into(),
            }),
            note: None,
        });
        r
    }

    pub(crate) fn drives(results: Vec<(&str, Vec<TestResult>)>) -> Vec<Drive> {
        results
            .into_iter()
            .enumerate()
            .map(|(index, (label, rs))| Drive {
                label: label.into(),
                index,
                facts: Facts::default(),
                entries: rs
                    .into_iter()
                    .map(|result| Entry { id: None, result })
                    .collect(),
            })
            .collect()
    }

    fn render(drives: &[Drive]) -> String {
        let rv = Review {
            drives,
            mode: Mode::Report,
            suite: None,
        };
        section(&rv).expect("a power section").into_string()
    }

    /// The SVG whose title is `title`.
    fn svg_titled<'a>(html: &'a str, title: &str) -> roxmltree::Document<'a> {
        for (at, _) in html.match_indices("<svg") {
            let end = at + html[at..].find("</svg>").unwrap() + 6;
            let doc = roxmltree::Document::parse(&html[at..end]).unwrap();
            let own = doc
                .root_element()
                .children()
                .find(|c| c.has_tag_name("title"))
                .and_then(|t| t.text());
            if own == Some(title) {
                return doc;
            }
        }
        panic!("no chart titled {title:?}");
    }

    /// Each bar of a bar chart: (hover title, drawn?, value text).
    fn bars_of(doc: &roxmltree::Document) -> Vec<(String, bool, String)> {
        doc.descendants()
            .filter(|n| n.attribute("class") == Some("bar"))
            .map(|g| {
                let child = |tag: &str| g.children().find(|c| c.has_tag_name(tag));
                (
                    child("title").and_then(|t| t.text()).unwrap_or("").into(),
                    child("rect").is_some(),
                    child("text").and_then(|t| t.text()).unwrap_or("").into(),
                )
            })
            .collect()
    }

    #[test]
    fn a_missing_value_is_written_missing_with_its_reason_never_a_zero_bar() {
        let w = power_result(
            "power-seq-write",
            "a",
            Some(3.2),
            Basis::Measured,
            None,
            &[Some(3.0), Some(3.4)],
        );
        let m = power_result(
            "power-seq-write",
            "b",
            None,
            Basis::Measured,
            Some("the meter command exited"),
            &[None, None],
        );
        let html = render(&drives(vec![("Drive A", vec![w]), ("Drive B", vec![m])]));
        let doc = svg_titled(&html, "Drive Power Consumption - Sequential Write");
        let bars = bars_of(&doc);
        assert_eq!(bars.len(), 2, "{bars:?}");
        assert_eq!(
            bars[0],
            (
                "Drive A: 3.20 W (mean; measured by a power meter)".into(),
                true,
                "3.20".into()
            )
        );
        let (title, drawn, text) = &bars[1];
        assert!(!drawn, "no bar for a missing value");
        assert_eq!(text, "missing");
        assert!(
            title.contains("Drive B: missing") && title.contains("the meter command exited"),
            "{title}"
        );
        assert!(!html.contains(">0.00<"), "no zero anywhere");
        // The table says it too.
        assert!(html.contains("the meter command exited"));
    }

    #[test]
    fn modelled_and_estimated_figures_say_so_measured_ones_do_not() {
        let rs = |basis| {
            vec![power_result(
                "power-idle",
                "x",
                Some(1.5),
                basis,
                None,
                &[Some(1.5)],
            )]
        };
        let html = render(&drives(vec![
            ("Meter", rs(Basis::Measured)),
            ("Sim", rs(Basis::Model)),
            ("Table", rs(Basis::Estimate)),
        ]));
        let doc = svg_titled(&html, "Drive Power Consumption - Idle");
        let labels: Vec<&str> = doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("row"))
            .filter_map(|g| g.children().find(|c| c.has_tag_name("text"))?.text())
            .collect();
        assert_eq!(labels, ["Meter", "Sim (modelled)", "Table (estimate)"]);
        let titles: Vec<String> = bars_of(&doc).into_iter().map(|b| b.0).collect();
        assert!(
            titles[0].contains("measured by a power meter"),
            "{titles:?}"
        );
        assert!(
            titles[1].contains("simulator") && titles[1].contains("not a measurement"),
            "{titles:?}"
        );
        assert!(
            titles[2].contains("NVMe power-state table") && titles[2].contains("not a measurement"),
            "{titles:?}"
        );
    }

    #[test]
    fn slumber_is_in_milliwatts_and_the_lowest_drive_is_marked_best() {
        let slumber = |w| {
            vec![power_result(
                "power-slumber",
                "x",
                Some(w),
                Basis::Measured,
                None,
                &[Some(w)],
            )]
        };
        let html = render(&drives(vec![
            ("Hungry", slumber(0.31)),
            ("Frugal", slumber(0.045)),
        ]));
        let doc = svg_titled(&html, "SSD Slumber Power (HIPM+DIPM)");
        let bars = bars_of(&doc);
        // Lowest first, highlighted (bold, on the band), in mW.
        assert_eq!(bars[0].2, "45");
        assert!(bars[0].0.starts_with("Frugal: 45 mW"), "{bars:?}");
        assert_eq!(bars[1].2, "310");
        let bold: Vec<&str> = doc
            .descendants()
            .filter(|n| n.attribute("font-weight") == Some("bold"))
            .filter_map(|n| n.text())
            .collect();
        assert_eq!(bold, ["SSD Slumber Power (HIPM+DIPM)", "Frugal", "45"]);
        assert!(doc
            .descendants()
            .any(|n| n.has_tag_name("text") && n.text() == Some("mW")));
        // The table: mW, and the link power setting found, set and put back.
        assert!(html.contains("45 mW") && html.contains("found off, set on"));
    }

    #[test]
    fn seconds_without_power_are_gaps_in_the_power_chart() {
        let mut r = power_result(
            "power-seq-write",
            "x",
            Some(3.0),
            Basis::Model,
            None,
            &[Some(3.0), Some(3.1), None, Some(2.9), Some(3.0)],
        );
        r.per_second[2].mbps = 0.0;
        let html = render(&drives(vec![("Drive", vec![r])]));
        let doc = svg_titled(&html, "Power");
        let series: Vec<(String, String)> = doc
            .descendants()
            .filter(|n| n.attribute("data-name").is_some())
            .map(|g| {
                let d = g
                    .children()
                    .find(|c| c.has_tag_name("path"))
                    .and_then(|p| p.attribute("d"))
                    .unwrap_or("");
                (g.attribute("data-points").unwrap().to_string(), d.into())
            })
            .collect();
        assert_eq!(series.len(), 2, "the writes and the tail: {series:?}");
        let (points, path) = &series[0];
        assert_eq!(points, "0,3 1,3.1 3,2.9 4,3", "second 2 has no value");
        assert_eq!(path.matches('M').count(), 2, "a gap: {path}");
        // The tail follows the writes, after the last second.
        assert!(series[1].0.starts_with("5,1.5 6,1.5"), "{series:?}");
        // The power chart's plot lines up with the MB/s chart above it.
        let plot_x = |title: &str| {
            let doc = svg_titled(&html, title);
            doc.root_element()
                .attribute("data-x")
                .unwrap()
                .split(' ')
                .skip(3)
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            plot_x("Power"),
            plot_x("128 KiB sequential write, QD32: MB/s and power")
        );
    }

    #[test]
    fn the_consistency_charts_show_power_only_where_the_run_has_it() {
        let mut c = result("consistency", None, "x", "2026-01-01T00:00:00Z", 40.0);
        let rv = |drives: &[Drive]| {
            let rv = Review {
                drives,
                mode: Mode::Report,
                suite: None,
            };
            let e = &drives[0].entries[0];
            crate::view::sections::consistency::charts(&rv, &drives[0], e).into_string()
        };
        let without = rv(&drives(vec![("Drive", vec![c.clone()])]));
        assert!(!without.contains("<title>Power</title>"));
        c.per_second[0].watts = Some(2.5);
        c.per_second[1].watts = None;
        let with = rv(&drives(vec![("Drive", vec![c])]));
        let doc = svg_titled(&with, "Power");
        let points: Vec<&str> = doc
            .descendants()
            .filter_map(|n| n.attribute("data-points"))
            .collect();
        assert_eq!(
            points,
            ["0,2.5"],
            "the second without power is no 0 W point"
        );
    }
}
