//! The PTS recovery tests as the spec plots them: the test's figure (IOPS for host idle
//! recovery, MB/s for cross-stimulus recovery) against time, a point per burst or per 5 s of
//! continuous IO, every drive on the same axes; and a table of each segment's mean and how
//! long it took to settle.

use maud::{html, Markup};
use suite::TestId;

use crate::chart::{Axis, NumberFormat, Series, XYChart};
use crate::view::review::Review;
use crate::view::{caveat_of_all, figure};
use crate::view::{fixed, grouped, marked, Cell, Table};

use super::{drive_name, parameters_link, with_figures};

/// The results of `test`, when there are any.
pub fn section(rv: &Review, test: TestId) -> Option<Markup> {
    let runs = with_figures(rv, test, |r| r.recovery());
    let figure_of = runs.first()?.2.figure;
    let unit = figure_of.unit();
    let mean = format!("mean ({unit})");
    let mut table = Table::new(&["drive", "test", "segment", &mean, "settled after (s)", ""]);
    for (d, e, a) in &runs {
        if let Some(b) = a.baseline_iops {
            table.row(vec![
                drive_name(d).into(),
                marked(&e.result.label, &e.result).into(),
                "steady state before".into(),
                Cell::Num(grouped(Some(b), 0)),
                Cell::Num(String::new()),
                parameters_link(rv, e).into(),
            ]);
        }
        for s in &a.segments {
            table.row(vec![
                drive_name(d).into(),
                marked(&e.result.label, &e.result).into(),
                s.label.clone().into(),
                Cell::Num(grouped(Some(s.value(a.figure)), 0)),
                Cell::Num(fixed(s.settled_s, 0)),
                parameters_link(rv, e).into(),
            ]);
        }
    }
    let mut chart = XYChart::new(
        &format!("{unit} against time"),
        Axis::linear("Time (min)"),
        Axis::linear(unit).format(NumberFormat::Si),
    )
    .size(720.0, 340.0)
    .warning(caveat_of_all(runs.iter().map(|&(d, e, _)| (d, &e.result))).as_deref());
    for (d, _, a) in &runs {
        let points = a.segments.iter().flat_map(|s| &s.points);
        let points = points.map(|p| (p.t_s / 60.0, p.value(a.figure)));
        chart = chart.series(Series::dots(&d.label, points).color(d.color()));
    }
    Some(html! {
        (table)
        div.charts { (figure(chart.to_svg())) }
    })
}
