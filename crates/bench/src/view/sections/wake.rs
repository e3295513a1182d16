//! Idle wake-up latency: each drive's reads after a rest against its reads awake, and what
//! its link power management was set to.

use maud::{html, Markup};
use suite::TestId;

use crate::chart::{Axis, Series, XYChart};
use crate::view::review::Review;
use crate::view::{caveat_of_all, figure, fixed, Cell, Table};

use super::{drive_name, parameters_link, with_figures};

/// The results of `test`, when there are any.
pub fn section(rv: &Review, test: TestId) -> Option<Markup> {
    let runs = with_figures(rv, test, |r| r.wake());
    if runs.is_empty() {
        return None;
    }
    let mut table = Table::new(&[
        "drive",
        "rest (s)",
        "after rest, mean (us)",
        "after rest, max (us)",
        "awake, mean (us)",
        "awake, p99 (us)",
        "wake-ups counted",
        "link power management",
        "",
    ]);
    for (d, e, a) in &runs {
        let link = &a.link_power;
        table.row(vec![
            drive_name(d).into(),
            Cell::Num(fixed(Some(a.rest_s), 1)),
            Cell::Num(fixed(Some(a.wake_mean_us), 1)),
            Cell::Num(fixed(Some(a.wake_max_us), 1)),
            Cell::Num(fixed(Some(a.awake_mean_us), 1)),
            Cell::Num(fixed(Some(a.awake_p99_us), 1)),
            Cell::Num(fixed(a.wakeups.map(|n| n as f64), 0)),
            link.note
                .clone()
                .or_else(|| link.set.clone().or_else(|| link.found.clone()))
                .unwrap_or_default()
                .into(),
            parameters_link(rv, e).into(),
        ]);
    }
    let mut chart = XYChart::new(
        "Each read after a rest",
        Axis::linear("read"),
        Axis::log10("latency (us)"),
    )
    .size(460.0, 300.0)
    .warning(caveat_of_all(runs.iter().map(|&(d, e, _)| (d, &e.result))).as_deref());
    for (d, _, a) in &runs {
        let points = a
            .wake_us
            .iter()
            .enumerate()
            .map(|(i, &us)| (i as f64 + 1.0, us));
        chart.push(Series::dots(&d.label, points).color(d.color()));
    }
    Some(html! {
        (table)
        div.charts { (figure(chart.to_svg())) }
    })
}
