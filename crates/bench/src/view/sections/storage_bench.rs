//! The Storage Bench and `trace replay`: per trace, the reviews' three figures (data rate,
//! disk busy time, service time) across drives, and the details.

use maud::{html, Markup};

use suite::replay::StorageBenchMetrics;
use suite::TestId;

use crate::chart::NumberFormat;
use crate::compare::Better;
use crate::view::review::Review;
use crate::view::{drive_cell, fixed, grouped, Cell, Drive, Entry, Table};

use super::bars::{bar_figure, BarRowSrc};
use super::parameters_link;

/// A drive's replays: the suite's Storage Bench and its own traces'.
fn replays(d: &Drive) -> impl Iterator<Item = &Entry> {
    d.of(TestId::StorageBench).chain(d.of(TestId::Replay))
}

/// Results of the same trace (at the same scale) compare: they are grouped by it.
fn trace(e: &Entry) -> String {
    e.result
        .replay()
        .map(|a| a.trace.clone())
        .or_else(|| e.result.variant.clone())
        .unwrap_or_else(|| "trace".into())
}

pub fn section(rv: &Review) -> Option<Markup> {
    let mut traces: Vec<String> = Vec::new();
    for e in rv.drives.iter().flat_map(replays) {
        if !traces.contains(&trace(e)) {
            traces.push(trace(e));
        }
    }
    if traces.is_empty() {
        return None;
    }
    let per_trace: Vec<Markup> = traces.iter().map(|t| one_trace(rv, t)).collect();
    Some(html! {
        p.note {
            "Data rate is bytes moved over disk busy time (idle time excluded), as the reviews \
             defined it; busy time is the time with at least one IO outstanding; service time is \
             issue to completion."
        }
        @for m in &per_trace { (m) }
    })
}

fn one_trace(rv: &Review, t: &str) -> Markup {
    let found: Vec<(&Drive, &Entry, Option<&StorageBenchMetrics>)> = rv
        .drives
        .iter()
        .flat_map(|d| {
            replays(d)
                .filter(|e| trace(e) == t)
                .map(move |e| (d, e, e.result.replay().map(|a| &a.metrics)))
        })
        .collect();
    let bars = |title: &str,
                unit: &str,
                better: Better,
                format: NumberFormat,
                metric: fn(&StorageBenchMetrics) -> f64| {
        let rows = found
            .iter()
            .map(|(d, e, m)| BarRowSrc {
                drive: d,
                label: d.label.clone(),
                values: vec![m.map_or(f64::NAN, metric)],
                entries: vec![Some(*e)],
                note: None,
            })
            .collect();
        bar_figure(
            rv,
            &format!("{title}: {t}"),
            unit,
            better,
            &[],
            format,
            rows,
        )
    };
    let mut table = Table::new(&[
        "drive",
        "data rate (MB/s)",
        "read (MB/s)",
        "write (MB/s)",
        "busy (s)",
        "read busy (s)",
        "write busy (s)",
        "service time (µs)",
        "",
    ]);
    for (d, e, m) in &found {
        let m = m.as_ref();
        table.row(vec![
            drive_cell(d, &e.result).into(),
            Cell::Num(fixed(m.map(|m| m.data_rate_mbps), 1)),
            Cell::Num(fixed(m.and_then(|m| m.read_rate_mbps), 1)),
            Cell::Num(fixed(m.and_then(|m| m.write_rate_mbps), 1)),
            Cell::Num(fixed(m.map(|m| m.busy_time_s), 2)),
            Cell::Num(fixed(m.and_then(|m| m.read_busy_time_s), 2)),
            Cell::Num(fixed(m.and_then(|m| m.write_busy_time_s), 2)),
            Cell::Num(grouped(m.map(|m| m.avg_service_time_us), 0)),
            parameters_link(rv, e).into(),
        ]);
    }
    html! {
        h3 { (t) }
        div.charts {
            (bars("Average data rate", "MB/s", Better::Higher, NumberFormat::Fixed(1), |m| m.data_rate_mbps))
            (bars("Disk busy time", "seconds", Better::Lower, NumberFormat::Fixed(2), |m| m.busy_time_s))
            (bars("Average service time", "µs", Better::Lower, NumberFormat::Grouped(0), |m| m.avg_service_time_us))
        }
        (table)
    }
}
