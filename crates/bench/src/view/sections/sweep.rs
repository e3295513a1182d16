//! Performance against transfer size (ATTO-style): read and write curves, one line per
//! drive in its colour, and each curve's peak.

use maud::{html, Markup};
use suite::TestId;

use crate::chart::{Axis, Series, XYChart};
use crate::view::review::Review;
use crate::view::{caveat_of_all, figure, fixed, human_bytes, marked, Cell, Drive, Entry, Table};

use super::{drive_name, parameters_link, sources};

pub fn section(rv: &Review) -> Option<Markup> {
    let mut charts = Vec::new();
    let mut table = Table::new(&[
        "drive",
        "direction",
        "peak MB/s",
        "peak at",
        "90% of peak from",
        "",
    ]);
    for dir in ["read", "write"] {
        let found: Vec<(&Drive, &Entry)> = rv
            .drives
            .iter()
            .filter_map(|d| d.find(TestId::TransferSweep, Some(dir)).map(|e| (d, e)))
            .collect();
        if found.is_empty() {
            continue;
        }
        let setup = |e: &Entry| {
            let p = e.result.sweep_parameters();
            format!(
                "QD{}, {} region",
                p.map_or(0, |p| p.qd),
                human_bytes(p.map(|p| p.region_bytes as f64))
            )
        };
        let setups: Vec<String> = found.iter().map(|(_, e)| setup(e)).collect();
        let mut subtitle = if setups.iter().all(|x| *x == setups[0]) {
            setups[0].clone()
        } else {
            "parameters differ between drives: see each result".into()
        };
        if let [(d, _)] = found.as_slice() {
            subtitle = format!("{}, {subtitle}", d.label);
        }
        let mut c = XYChart::new(
            &format!("Sequential {dir}: MB/s against transfer size"),
            Axis::log2("Transfer size"),
            Axis::linear("MB/s"),
        )
        .size(560.0, 380.0)
        .subtitle(&subtitle)
        .warning(caveat_of_all(found.iter().map(|&(d, e)| (d, &e.result))).as_deref());
        for (d, e) in &found {
            c.push(
                Series::line(
                    &marked(&d.label, &e.result),
                    e.result.points.iter().map(|p| (p.x, p.summary.mbps)),
                )
                .color(d.color()),
            );
            let a = e.result.transfer_sweep();
            table.row(vec![
                drive_name(d).into(),
                dir.into(),
                Cell::Num(fixed(a.as_ref().map(|a| a.peak_mbps), 1)),
                Cell::Num(human_bytes(a.as_ref().map(|a| a.peak_at_bytes as f64))),
                Cell::Num(human_bytes(
                    a.as_ref()
                        .and_then(|a| a.reaches_90pct_at_bytes)
                        .map(|b| b as f64),
                )),
                parameters_link(rv, e).into(),
            ]);
        }
        let links: Vec<(String, &Entry)> =
            found.iter().map(|(d, e)| (d.label.clone(), *e)).collect();
        charts.push(html! { div { (figure(c.to_svg())) (sources(rv, &links)) } });
    }
    (!charts.is_empty()).then(|| html! { div.charts { @for c in &charts { (c) } } (table) })
}
