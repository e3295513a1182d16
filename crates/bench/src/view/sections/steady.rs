//! Steady-state random write (SNIA PTS style rounds): every drive's steady IOPS as bars, then
//! one drive's rounds at a time with its verdict.

use maud::{html, Markup};
use suite::TestId;

use crate::chart::{Axis, NumberFormat, Series, XYChart};
use crate::view::review::{Fragment, Review};
use crate::view::{capitalized, caveat, figure, grouped, Drive, Entry};

use super::{drive_dim, sources, switcher, views_by_drive};

/// One result's rounds and verdict.
pub fn charts(rv: &Review, d: &Drive, e: &Entry) -> Markup {
    let r = &e.result;
    let a = r.steady_state();
    let c = XYChart::new(
        "4 KiB random write: IOPS per round",
        Axis::linear("Round"),
        Axis::linear("IOPS").format(NumberFormat::Si),
    )
    .size(560.0, 340.0)
    .subtitle(&d.label)
    .warning(caveat(r).as_deref())
    .series(
        Series::line(&d.label, r.points.iter().map(|p| (p.x, p.summary.iops))).color(d.color()),
    );
    html! {
        @match &a {
            Some(a) if a.reached => p.ok {
                "Steady state reached at round " (a.round.unwrap_or(0)) ": " (grouped(Some(a.steady_iops), 0))
                " IOPS (SNIA PTS rule: 5-round window, excursion within 20%, slope within 10%)."
            },
            Some(a) => p.bad { (capitalized(&a.verdict())) "." },
            None => p.bad { "This result's analysis cannot be read." },
        }
        (figure(c.to_svg()))
        (sources(rv, &[(d.label.clone(), e)]))
    }
}

pub fn section(rv: &Review) -> Option<Markup> {
    let views = views_by_drive(rv, TestId::SteadyState);
    if views.is_empty() {
        return None;
    }
    let dims = [drive_dim(views.iter().map(|v| v.1))];
    Some(html! {
        @if rv.multi() { (super::bars::steady(rv).unwrap_or_default()) }
        (switcher(rv, Fragment::SteadyState, &dims, &views))
    })
}
