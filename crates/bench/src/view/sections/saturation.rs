//! Write saturation (SNIA PTS WSAT) as the spec reports it: IOPS round by round against the
//! time and against the total gigabytes written (TGBW), every drive on the same axes, and
//! each run's first and last round.

use maud::{html, Markup};
use suite::saturation::Round;
use suite::TestId;

use crate::chart::{Axis, NumberFormat, Series, XYChart};
use crate::view::review::Review;
use crate::view::{figure, SaidOnce};
use crate::view::{fixed, grouped, marked, Cell, Table};

use super::{drive_name, parameters_link, with_figures};

/// The results of `test`, when there are any.
pub fn section(rv: &Review, test: TestId) -> Option<Markup> {
    let runs = with_figures(rv, test, |r| r.saturation());
    if runs.is_empty() {
        return None;
    }
    let mut table = Table::new(&[
        "drive",
        "test",
        "first round (IOPS)",
        "last round (IOPS)",
        "written (GB)",
        "",
    ]);
    for (d, e, a) in &runs {
        table.row(vec![
            drive_name(d).into(),
            marked(&e.result.label, &e.result).into(),
            Cell::Num(grouped(a.first().map(|r| r.iops), 0)),
            Cell::Num(grouped(a.last().map(|r| r.iops), 0)),
            Cell::Num(fixed(a.last().map(|r| r.tgbw), 1)),
            parameters_link(rv, e).into(),
        ]);
    }
    let caveat = SaidOnce::of_all(runs.iter().map(|&(d, e, _)| (d, &e.result)));
    let chart = |title: &str, x: Axis, at: fn(&Round) -> f64| {
        let mut c = XYChart::new(title, x, Axis::linear("IOPS").format(NumberFormat::Si))
            .size(560.0, 340.0)
            .warning(caveat.as_ref().map(SaidOnce::mark));
        for (d, _, a) in &runs {
            let points = a.rounds.iter().map(|r| (at(r), r.iops));
            c = c.series(Series::line(&d.label, points).color(d.color()));
        }
        figure(c.to_svg())
    };
    let latency = runs.iter().filter_map(|(d, e, _)| {
        let mark = SaidOnce::of(&e.result);
        super::latency::over_time("Latency over the run", d, &e.result)
            .map(|l| l.warning(mark.as_ref().map(SaidOnce::mark)))
    });
    Some(html! {
        (table)
        @if let Some(c) = &caveat { (c.head()) }
        div.charts {
            (chart("IOPS vs time", Axis::linear("Time (min)"), |r| r.end_s / 60.0))
            (chart("IOPS vs TGBW", Axis::linear("Total GB written"), |r| r.tgbw))
            @for l in latency { (figure(l.to_svg())) }
        }
    })
}
