//! Custom workloads (`ssdlab run custom`), or any test's results drawn as workloads: their
//! figures, and in a report their IOPS over time (with the drive's power under it, where the
//! run has power).

use maud::{html, Markup};
use suite::TestId;

use crate::chart::{Axis, NumberFormat, Series, XYChart};
use crate::view::review::Review;
use crate::view::{caveat, figure, fixed, grouped, marked, Cell, Table};

use super::{drive_name, parameters_link};

/// The results of `test` as workloads.
pub fn section(rv: &Review, test: TestId) -> Option<Markup> {
    let runs: Vec<_> = rv
        .drives
        .iter()
        .flat_map(|d| d.of(test).map(move |e| (d, e)))
        .collect();
    if runs.is_empty() {
        return None;
    }
    let mut table = Table::new(&["drive", "workload", "IOPS", "MB/s", ""]);
    for (d, e) in &runs {
        table.row(vec![
            drive_name(d).into(),
            marked(&e.result.label, &e.result).into(),
            Cell::Num(grouped(Some(e.result.summary.iops), 0)),
            Cell::Num(fixed(Some(e.result.summary.mbps), 1)),
            parameters_link(rv, e).into(),
        ]);
    }
    // Workloads of different drives need not be alike: curves only on a one-drive page.
    let curves: Vec<Markup> = if rv.multi() {
        Vec::new()
    } else {
        runs.iter()
            .filter(|(_, e)| e.result.per_second.len() > 1)
            .map(|(d, e)| {
                let c = XYChart::new(
                    &e.result.label,
                    Axis::linear("Time (s)"),
                    Axis::linear("IOPS").format(NumberFormat::Si),
                )
                .size(560.0, 340.0)
                .warning(caveat(&e.result).as_deref())
                .series(
                    Series::line(
                        &d.label,
                        e.result
                            .per_second
                            .iter()
                            .filter(|p| p.covered_s.is_none())
                            .map(|p| (p.t as f64, p.iops)),
                    )
                    .color(d.color()),
                );
                let power = super::power::beneath(&c, d, &e.result, &[]);
                html! { div { (figure(c.to_svg())) @if let Some(p) = power { (p) } } }
            })
            .collect()
    };
    Some(html! { (table) div.charts { @for c in &curves { (c) } } })
}
