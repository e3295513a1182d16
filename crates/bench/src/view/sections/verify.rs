//! Data verification: what was checked, what was found, the first bad LBAs.

use maud::{html, Markup};

use crate::view::marked;
use crate::view::review::Review;

use super::parameters_link;

pub fn section(rv: &Review) -> Option<Markup> {
    let verified: Vec<_> = rv
        .drives
        .iter()
        .flat_map(|d| {
            d.entries
                .iter()
                .filter_map(move |e| e.result.verify.as_ref().map(|v| (d, e, v)))
        })
        .collect();
    if verified.is_empty() {
        return None;
    }
    Some(html! {
        @for (d, e, v) in &verified {
            h3 { @if rv.multi() { (d.label) ": " } (marked(&e.result.label, &e.result)) }
            p class=(if v.ok() { "ok" } else { "bad" }) { (v.headline()) " " (parameters_link(rv, e)) }
            @if !v.first.is_empty() {
                ul { @for m in &v.first { li { (m.to_string()) } } }
            }
        }
    })
}
