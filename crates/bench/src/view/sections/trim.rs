//! TRIM validation: 128 KiB sequential writes on a clean drive, after torture and after
//! TRIM of the whole span; the table across drives and one drive's curves at a time.

use maud::{html, Markup};
use suite::TestId;

use crate::chart::{Axis, Series, XYChart};
use crate::view::review::{Fragment, Review};
use crate::view::{caveat, figure, fixed, Cell, Drive, Entry, Table};

use super::{drive_dim, parameters_link, sources, switcher, views_by_drive};

/// One result's three passes along the LBA range.
pub fn charts(rv: &Review, d: &Drive, e: &Entry) -> Markup {
    let r = &e.result;
    let Some(a) = r.trim() else {
        return html! { p.bad { "This TRIM result's analysis cannot be read." } };
    };
    let mut c = XYChart::new(
        "128 KiB sequential write across the LBA range",
        Axis::linear("LBA position (%)").range(0.0, 100.0),
        Axis::linear("MB/s"),
    )
    .size(560.0, 360.0)
    .subtitle(&d.label)
    .warning(caveat(r).as_deref());
    // The passes are states, not drives: greys and red, never a drive's colour.
    // After TRIM dashed: where TRIM works it lies on the clean pass, which shows between.
    for (pass, name, color, dashed) in [
        (&a.clean, "Clean", "#222222", false),
        (&a.dirty, "Dirty (tortured)", "#b3261e", false),
        (&a.after_trim, "After TRIM", "#8c8c8c", true),
    ] {
        let line = Series::line(name, pass.curve.iter().copied()).color(color);
        c.push(if dashed { line.dashed("6 4") } else { line });
    }
    html! {
        (figure(c.to_svg()))
        (sources(rv, &[(d.label.clone(), e)]))
    }
}

pub fn section(rv: &Review) -> Option<Markup> {
    let views = views_by_drive(rv, TestId::Trim);
    if views.is_empty() {
        return None;
    }
    let mut table = Table::new(&[
        "drive",
        "clean",
        "dirty",
        "after TRIM",
        "slowest dirty sample",
        "verdict",
        "trimmed blocks read back",
        "TRIM method",
        "",
    ]);
    for (_, d, e) in &views {
        let a = e.result.trim();
        let pass =
            |f: fn(&suite::methodology::trim::TrimAnalysis) -> f64| Cell::Num(fixed(a.map(f), 1));
        let verdict = html! {
            @match &a {
                Some(a) => span class=(if a.functional { "ok" } else { "bad" }) { (a.verdict) },
                None => span.bad { "analysis unreadable" },
            }
        };
        let reads = html! {
            @if let Some(t) = a.and_then(|a| a.trimmed_reads.as_ref()) {
                span class=(if t.violation { "bad" } else { "ok" }) { (t.verdict) }
            } @else { "–" }
        };
        table.row(vec![
            crate::view::drive_cell(d, &e.result).into(),
            pass(|a| a.clean.first_60s_mbps),
            pass(|a| a.dirty.first_60s_mbps),
            pass(|a| a.after_trim.first_60s_mbps),
            pass(|a| a.dirty.min_mbps),
            verdict.into(),
            reads.into(),
            a.map_or("–".to_string(), |a| a.trim_method.clone()).into(),
            parameters_link(rv, e).into(),
        ]);
    }
    let dims = [drive_dim(views.iter().map(|v| v.1))];
    Some(html! {
        p.note {
            "128 KiB sequential writes for 60 s (MB/s): on a clean (purged) drive, after torture \
             with 4 KiB random writes, and after TRIM of the whole span. TRIM works when the \
             after-TRIM figure is within 10% of the clean one."
        }
        (table)
        (switcher(rv, Fragment::Trim, &dims, &views))
    })
}
