//! The 2018-2021 reviews' stepped tests: MB/s against queue depth or read share, a chart per
//! drive state (empty, full) with a line per drive, and a table of the burst speed, the
//! reviews' summary figure, the peak and the energy per byte.

use maud::{html, Markup};
use suite::drive_state::DriveState;
use suite::steps::Axis as StepAxis;
use suite::TestId;

use crate::chart::{Axis, Series, XYChart};
use crate::view::review::Review;
use crate::view::{caveat_of_all, figure};
use crate::view::{fixed, marked, Cell, Table};

use super::{drive_name, parameters_link, with_figures};

/// The results of `test`, when there are any.
pub fn section(rv: &Review, test: TestId) -> Option<Markup> {
    let runs = with_figures(rv, test, |r| r.steps());
    let (_, _, first) = runs.first()?;
    let headline = match first.axis {
        StepAxis::QueueDepth => "QD1-QD4 mean (MB/s)",
        StepAxis::ReadShare => "all shares mean (MB/s)",
    };
    let mut table = Table::new(&[
        "drive",
        "state",
        "burst (MB/s)",
        headline,
        "peak (MB/s)",
        "efficiency (MB/J)",
        "",
    ]);
    for (d, e, a) in &runs {
        table.row(vec![
            drive_name(d).into(),
            a.state.name().into(),
            Cell::Num(fixed(a.burst.as_ref().map(|b| b.mbps), 0)),
            Cell::Num(fixed(Some(a.headline_mbps), 0)),
            Cell::Num(fixed(Some(a.peak_mbps), 0)),
            Cell::Num(fixed(crate::compare::mb_per_joule(&e.result), 1)),
            parameters_link(rv, e).into(),
        ]);
    }
    let mut charts = Vec::new();
    for state in [DriveState::Empty, DriveState::Full] {
        let shown: Vec<_> = runs.iter().filter(|(_, _, a)| a.state == state).collect();
        let Some((_, _, a)) = shown.first() else {
            continue;
        };
        let x = match a.axis {
            StepAxis::QueueDepth => Axis::log2(a.axis.title()),
            StepAxis::ReadShare => Axis::linear(a.axis.title()),
        };
        let mut chart = XYChart::new(&format!("MB/s, {state} drive"), x, Axis::linear("MB/s"))
            .size(460.0, 320.0)
            .warning(caveat_of_all(shown.iter().map(|&&(d, e, _)| (d, &e.result))).as_deref());
        for (d, e, _) in &shown {
            let mut points: Vec<(f64, f64)> = e
                .result
                .points
                .iter()
                .map(|p| (p.x, p.summary.mbps))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            chart.push(Series::line(&marked(&d.label, &e.result), points).color(d.color()));
        }
        charts.push(figure(chart.to_svg()));
    }
    Some(html! {
        (table)
        div.charts { @for c in &charts { (c) } }
    })
}
