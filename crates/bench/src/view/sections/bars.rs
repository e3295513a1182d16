//! Bar charts across drives as the reviews printed them (one row per drive, the best first
//! and highlighted, every drive in its page colour), and the two sections made only of
//! them: the four corners and incompressible sequential.

use maud::{html, Markup};

use suite::result::TestResult;
use suite::TestId;

use crate::chart::{BarChart, NumberFormat};
use crate::compare::Better;
use crate::view::review::Review;
use crate::view::{caveat, figure, fixed, marked, Cell, Drive, Entry, Table};

use super::{drive_name, parameters_link, sources};

/// One row of a bar chart: a drive, its value in each group and the result behind each.
pub struct BarRowSrc<'a> {
    pub drive: &'a Drive,
    pub label: String,
    pub values: Vec<f64>,
    pub entries: Vec<Option<&'a Entry>>,
    /// Said on hover after the row's values (how they were obtained). On a row without a
    /// value, why it is missing: the row stays, its bar written "missing".
    pub note: Option<String>,
}

/// A bar chart, best first and highlighted, with links to its results; nothing when no
/// drive has a value or a reason for lacking one. Rows of results that are incomplete or
/// deviate say so, and the chart carries a warning.
pub fn bar_figure(
    rv: &Review,
    title: &str,
    unit: &str,
    better: Better,
    groups: &[&str],
    format: NumberFormat,
    rows: Vec<BarRowSrc>,
) -> Markup {
    let mut rows: Vec<BarRowSrc> = rows
        .into_iter()
        .filter(|r| r.values.iter().any(|v| v.is_finite()) || r.note.is_some())
        .collect();
    if rows.is_empty() {
        return html! {};
    }
    let key = |r: &BarRowSrc| {
        let v = r.values[0];
        match (v.is_finite(), better) {
            (false, _) => f64::INFINITY,
            (true, Better::Higher) => -v,
            (true, Better::Lower) => v,
        }
    };
    rows.sort_by(|a, b| key(a).total_cmp(&key(b)));
    let word = if better == Better::Higher {
        "higher"
    } else {
        "lower"
    };
    let flawed = |r: &BarRowSrc| {
        r.entries
            .iter()
            .flatten()
            .any(|e| caveat(&e.result).is_some())
    };
    let warning = rows
        .iter()
        .any(flawed)
        .then_some("Rows marked (incomplete) or (deviates) were not measured as the methodology says: see their parameters");
    let mut chart = BarChart::new(title, unit)
        .width(560.0)
        .subtitle(&format!("{unit}, {word} is better; the best highlighted"))
        .warning(warning)
        .value_format(format);
    if groups.len() > 1 {
        chart = chart.groups(groups);
    }
    for r in &rows {
        let label = match r
            .entries
            .iter()
            .flatten()
            .find(|e| caveat(&e.result).is_some())
        {
            Some(e) => marked(&r.label, &e.result),
            None => r.label.clone(),
        };
        chart.push_row(&label, &r.values);
    }
    for (i, r) in rows.iter().enumerate() {
        chart = chart.row_color(i, r.drive.color());
        if let Some(note) = &r.note {
            chart = chart.row_note(i, note);
        }
    }
    if rows
        .iter()
        .any(|r| r.note.is_some() && r.values.iter().any(|v| !v.is_finite()))
    {
        chart = chart.missing_label("missing");
    }
    if rows[0].values[0].is_finite() {
        chart = chart.highlight(0);
    }
    let links: Vec<(String, &Entry)> = rows
        .iter()
        .flat_map(|r| {
            r.entries.iter().zip(0..).filter_map(move |(e, g)| {
                let group = groups.get(g).filter(|g| !g.is_empty() && groups.len() > 1);
                let label = match group {
                    Some(g) => format!("{} ({})", r.label, g.to_lowercase()),
                    None => r.label.clone(),
                };
                e.map(|e| (label, e))
            })
        })
        .collect();
    html! { div { (figure(chart.to_svg())) (sources(rv, &links)) } }
}

#[derive(Clone, Copy)]
enum Metric {
    Mbps,
    /// The steady-state test's IOPS.
    SteadyIops,
}

/// A bar chart of one test across drives: one group per variant.
struct BarTest {
    title: &'static str,
    test: TestId,
    variants: &'static [(Option<&'static str>, &'static str)],
    metric: Metric,
}

const ONE: &[(Option<&str>, &str)] = &[(None, "")];
const DATA_KINDS: &[(Option<&str>, &str)] = &[
    (Some("incompressible"), "Incompressible"),
    (Some("compressible"), "Compressible"),
];

const CORNERS: [BarTest; 5] = [
    BarTest {
        title: "4 KiB random read (QD3)",
        test: TestId::RandomRead,
        variants: ONE,
        metric: Metric::Mbps,
    },
    BarTest {
        title: "4 KiB random write (QD3)",
        test: TestId::RandomWrite,
        variants: DATA_KINDS,
        metric: Metric::Mbps,
    },
    BarTest {
        title: "4 KiB random write (QD32)",
        test: TestId::RandomWriteQd32,
        variants: ONE,
        metric: Metric::Mbps,
    },
    BarTest {
        title: "128 KiB sequential read (QD1)",
        test: TestId::SeqRead,
        variants: ONE,
        metric: Metric::Mbps,
    },
    BarTest {
        title: "128 KiB sequential write (QD1)",
        test: TestId::SeqWrite,
        variants: DATA_KINDS,
        metric: Metric::Mbps,
    },
];

const SEQ_INCOMPRESSIBLE: [BarTest; 2] = [
    BarTest {
        title: "Incompressible sequential read (16 MiB transfers, QD1)",
        test: TestId::SeqIncompressible,
        variants: &[(Some("read"), "")],
        metric: Metric::Mbps,
    },
    BarTest {
        title: "Incompressible sequential write (16 MiB transfers, QD1)",
        test: TestId::SeqIncompressible,
        variants: &[(Some("write"), "")],
        metric: Metric::Mbps,
    },
];

const STEADY: BarTest = BarTest {
    title: "Steady-state 4 KiB random write",
    test: TestId::SteadyState,
    variants: ONE,
    metric: Metric::SteadyIops,
};

fn bar_charts(rv: &Review, tests: &[BarTest]) -> Option<Markup> {
    let charts: Vec<Markup> = tests
        .iter()
        .map(|t| {
            let rows = rv
                .drives
                .iter()
                .map(|d| {
                    let found: Vec<Option<&Entry>> =
                        t.variants.iter().map(|(v, _)| d.find(t.test, *v)).collect();
                    // A steady-state result whose rule did not hold has no bar; its row
                    // says why.
                    let value = |r: &TestResult| match (t.metric, r.steady_state()) {
                        (Metric::Mbps, _) => r.summary.mbps,
                        (Metric::SteadyIops, Some(a)) if !a.reached => f64::NAN,
                        (Metric::SteadyIops, a) => a.map_or(r.summary.iops, |a| a.steady_iops),
                    };
                    let note = (found.iter().flatten())
                        .filter_map(|e| e.result.steady_state())
                        .find(|a| !a.reached)
                        .filter(|_| matches!(t.metric, Metric::SteadyIops))
                        .map(|a| a.verdict());
                    BarRowSrc {
                        drive: d,
                        label: d.label.clone(),
                        values: found
                            .iter()
                            .map(|e| e.map_or(f64::NAN, |e| value(&e.result)))
                            .collect(),
                        entries: found,
                        note,
                    }
                })
                .collect();
            let groups: Vec<&str> = t.variants.iter().map(|(_, g)| *g).collect();
            let (unit, format) = match t.metric {
                Metric::Mbps => ("MB/s", NumberFormat::Fixed(1)),
                Metric::SteadyIops => ("IOPS", NumberFormat::Grouped(0)),
            };
            bar_figure(rv, t.title, unit, Better::Higher, &groups, format, rows)
        })
        .filter(|m| !m.0.is_empty())
        .collect();
    (!charts.is_empty()).then(|| html! { div.charts { @for c in &charts { (c) } } })
}

/// Whether `test` is a row of the four corners.
pub fn is_corner(test: TestId) -> bool {
    CORNERS.iter().any(|t| t.test == test)
}

/// The four corners: bars, then every figure of every corner test.
pub fn corners(rv: &Review) -> Option<Markup> {
    let charts = bar_charts(rv, &CORNERS)?;
    let mut table = Table::new(&[
        "drive",
        "test",
        "MB/s",
        "IOPS",
        "mean latency (µs)",
        "p99 latency (µs)",
        "",
    ]);
    for d in rv.drives {
        for e in d.entries.iter().filter(|e| is_corner(e.result.test)) {
            let r = &e.result;
            let lat = r
                .summary
                .write
                .as_ref()
                .or(r.summary.read.as_ref())
                .map(|d| &d.latency_us);
            table.row(vec![
                drive_name(d).into(),
                marked(&r.label, r).into(),
                Cell::Num(fixed(Some(r.summary.mbps), 1)),
                Cell::Num(crate::view::grouped(Some(r.summary.iops), 0)),
                Cell::Num(fixed(lat.map(|l| l.mean), 1)),
                Cell::Num(fixed(lat.map(|l| l.p99), 1)),
                parameters_link(rv, e).into(),
            ]);
        }
    }
    Some(html! { (charts) (table) })
}

pub fn seq_incompressible(rv: &Review) -> Option<Markup> {
    bar_charts(rv, &SEQ_INCOMPRESSIBLE)
}

/// The steady-state test's IOPS across drives.
pub fn steady(rv: &Review) -> Option<Markup> {
    bar_charts(rv, std::slice::from_ref(&STEADY))
}
