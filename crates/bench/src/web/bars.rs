//! Bar charts across drives, as the reviews printed them: one row per drive, the best first
//! and highlighted, with links to the results behind every bar.

use crate::chart::{escape, BarChart, NumberFormat};
use crate::db::StoredResult;
use crate::report::figure;

use super::compare::Drive;
use super::{result_link, sources};

pub(super) use crate::compare::Better;

/// One bar chart row: a drive, its value in each group and the result behind each value.
pub(super) struct BarRowSrc {
    pub label: String,
    pub values: Vec<f64>,
    pub ids: Vec<Option<i64>>,
}

/// A bar chart, best first and highlighted, with its "parameters" links; empty when no
/// drive has a value.
pub(super) fn bar_figure(
    title: &str,
    unit: &str,
    better: Better,
    groups: &[&str],
    format: NumberFormat,
    rows: Vec<BarRowSrc>,
) -> String {
    let mut rows: Vec<BarRowSrc> = rows
        .into_iter()
        .filter(|r| r.values.iter().any(|v| v.is_finite()))
        .collect();
    if rows.is_empty() {
        return String::new();
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
    let mut chart = BarChart::new(title, unit)
        .subtitle(&format!("{unit}, {word} is better; the best highlighted"))
        .value_format(format);
    if groups.len() > 1 {
        chart = chart.groups(groups);
    }
    for r in &rows {
        chart.push_row(&r.label, &r.values);
    }
    if rows[0].values[0].is_finite() {
        chart = chart.highlight(0);
    }
    if groups.len() < 2 {
        let links: Vec<(String, i64)> = rows
            .iter()
            .filter_map(|r| Some((r.label.clone(), r.ids.first().copied().flatten()?)))
            .collect();
        return format!("<div>{}{}</div>", figure(&chart.to_svg()), sources(&links));
    }
    // Grouped: each drive once, a link per group.
    let per_drive: Vec<String> = rows
        .iter()
        .map(|r| {
            let links: Vec<String> = r
                .ids
                .iter()
                .zip(groups)
                .filter_map(|(id, g)| id.map(|id| result_link(id, &escape(&g.to_lowercase()))))
                .collect();
            format!("{} ({})", escape(&r.label), links.join(", "))
        })
        .collect();
    format!(
        "<div>{}<p class=\"src\">parameters: {}</p></div>",
        figure(&chart.to_svg()),
        per_drive.join(" &middot; ")
    )
}

#[derive(Clone, Copy)]
enum Metric {
    Mbps,
    /// The steady-state test's IOPS.
    SteadyIops,
}

/// A bar chart of one test across drives: one group per variant.
pub(super) struct BarTest {
    title: &'static str,
    test: &'static str,
    variants: &'static [(Option<&'static str>, &'static str)],
    metric: Metric,
}

const ONE: &[(Option<&str>, &str)] = &[(None, "")];
const DATA_KINDS: &[(Option<&str>, &str)] = &[
    (Some("incompressible"), "Incompressible"),
    (Some("compressible"), "Compressible"),
];

pub(super) const CORNERS: [BarTest; 5] = [
    BarTest {
        title: "4 KiB random read (QD3)",
        test: "random-read",
        variants: ONE,
        metric: Metric::Mbps,
    },
    BarTest {
        title: "4 KiB random write (QD3)",
        test: "random-write",
        variants: DATA_KINDS,
        metric: Metric::Mbps,
    },
    BarTest {
        title: "4 KiB random write (QD32)",
        test: "random-write-qd32",
        variants: ONE,
        metric: Metric::Mbps,
    },
    BarTest {
        title: "128 KiB sequential read (QD1)",
        test: "seq-read",
        variants: ONE,
        metric: Metric::Mbps,
    },
    BarTest {
        title: "128 KiB sequential write (QD1)",
        test: "seq-write",
        variants: DATA_KINDS,
        metric: Metric::Mbps,
    },
];

pub(super) const SEQ_INCOMPRESSIBLE: [BarTest; 2] = [
    BarTest {
        title: "Incompressible sequential read (16 MiB transfers, QD1)",
        test: "seq-incompressible",
        variants: &[(Some("read"), "")],
        metric: Metric::Mbps,
    },
    BarTest {
        title: "Incompressible sequential write (16 MiB transfers, QD1)",
        test: "seq-incompressible",
        variants: &[(Some("write"), "")],
        metric: Metric::Mbps,
    },
];

pub(super) const STEADY: [BarTest; 1] = [BarTest {
    title: "Steady-state 4 KiB random write",
    test: "steady-state",
    variants: ONE,
    metric: Metric::SteadyIops,
}];

pub(super) fn bar_section(drives: &[Drive], tests: &[BarTest]) -> String {
    let mut s = String::new();
    for t in tests {
        let rows = drives
            .iter()
            .map(|d| {
                let found: Vec<Option<&StoredResult>> =
                    t.variants.iter().map(|(v, _)| d.find(t.test, *v)).collect();
                let value = |r: &StoredResult| match t.metric {
                    Metric::Mbps => r.result.summary.mbps,
                    Metric::SteadyIops => r.result.analysis["steady_iops"]
                        .as_f64()
                        .unwrap_or(r.result.summary.iops),
                };
                let complete = found.iter().flatten().all(|r| r.result.complete);
                BarRowSrc {
                    label: if complete {
                        d.label.clone()
                    } else {
                        format!("{} (incomplete)", d.label)
                    },
                    values: found.iter().map(|r| r.map_or(f64::NAN, value)).collect(),
                    ids: found.iter().map(|r| r.map(|r| r.id)).collect(),
                }
            })
            .collect();
        let groups: Vec<&str> = t.variants.iter().map(|(_, g)| *g).collect();
        let (unit, format) = match t.metric {
            Metric::Mbps => ("MB/s", NumberFormat::Fixed(1)),
            Metric::SteadyIops => ("IOPS", NumberFormat::Grouped(0)),
        };
        s += &bar_figure(t.title, unit, Better::Higher, &groups, format, rows);
    }
    if s.is_empty() {
        return s;
    }
    format!("<div class=\"charts\">{s}</div>")
}
