//! The whole-drive fill as the 2018-2021 reviews drew it: write speed against gigabytes
//! written, every drive on the same axes, and each drive's SLC cache: its size, the speed in
//! it and the speed after it.

use maud::{html, Markup};
use suite::TestId;

use crate::chart::{Axis, Series, XYChart};
use crate::view::review::Review;
use crate::view::{caveat_of_all, figure};
use crate::view::{fixed, marked, Cell, Table};

use super::{drive_name, parameters_link, with_figures};

/// The results of `test`, when there are any.
pub fn section(rv: &Review, test: TestId) -> Option<Markup> {
    let runs = with_figures(rv, test, |r| r.fill());
    if runs.is_empty() {
        return None;
    }
    let mut table = Table::new(&[
        "drive",
        "test",
        "cache (GB)",
        "in cache (MB/s)",
        "after cache (MB/s)",
        "whole fill (MB/s)",
        "",
    ]);
    for (d, e, a) in &runs {
        table.row(vec![
            drive_name(d).into(),
            marked(&e.result.label, &e.result).into(),
            match a.cache {
                Some(c) => Cell::Num(fixed(Some(c.bytes as f64 / 1e9), 1)),
                None => match suite::fill_curve::stopped_short(&e.result) {
                    Some((written, _)) => {
                        format!("none in the {:.1} GB written", written as f64 / 1e9).into()
                    }
                    None => "none".into(),
                },
            },
            Cell::Num(fixed(a.cache.map(|c| c.mbps), 0)),
            Cell::Num(fixed(Some(a.after_cache_mbps), 0)),
            Cell::Num(fixed(Some(e.result.summary.mbps), 0)),
            parameters_link(rv, e).into(),
        ]);
    }
    let mut chart = XYChart::new(
        "Write speed over a whole-drive fill",
        Axis::linear("GB written"),
        Axis::linear("MB/s"),
    )
    .size(560.0, 340.0)
    .warning(caveat_of_all(runs.iter().map(|&(d, e, _)| (d, &e.result))).as_deref());
    for (d, _, a) in &runs {
        let points = a.per_gb.iter().map(|p| (p.gb, p.mbps));
        chart = chart.series(Series::line(&d.label, points).color(d.color()));
    }
    Some(html! {
        (table)
        div.charts { (figure(chart.to_svg())) }
    })
}
