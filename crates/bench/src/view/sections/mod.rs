//! One module per section of a review, and the pieces they share: links to parameters, a
//! drive's swatch, bar charts across drives and the switcher that shows one drive's (or one
//! setting's) charts at a time.

pub mod bars;
pub mod by_kind;
pub mod consistency;
pub mod counters;
pub mod custom;
pub mod drive;
pub mod fill;
pub mod latency;
pub mod parameters;
pub mod power;
pub mod pts;
pub mod recovery;
pub mod saturation;
pub mod steady;
pub mod steps;
pub mod storage_bench;
pub mod sweep;
pub mod trim;
pub mod verify;
pub mod wake;

use maud::{html, Markup};
use suite::TestId;

use super::review::{fragment, Fragment, Review};
use super::{Drive, Entry, Mode};

/// "parameters: a · b" under a chart: links to the results that made it.
pub fn sources(rv: &Review, links: &[(String, &Entry)]) -> Markup {
    let links: Vec<(String, String)> = links
        .iter()
        .filter_map(|(label, e)| Some((label.clone(), rv.link(e)?)))
        .collect();
    html! {
        @if !links.is_empty() {
            p.src {
                "parameters: "
                @for (i, (label, href)) in links.iter().enumerate() {
                    @if i > 0 { " · " }
                    a href=(href) { (label) }
                }
            }
        }
    }
}

/// A link to one result's parameters.
/// Every result of `test` with the figures `figures` reads from it, with its drive.
pub fn with_figures<'a, A>(
    rv: &Review<'a>,
    test: TestId,
    figures: fn(&'a suite::result::TestResult) -> Option<&'a A>,
) -> Vec<(&'a Drive, &'a Entry, &'a A)> {
    rv.drives
        .iter()
        .flat_map(|d| {
            d.of(test)
                .filter_map(move |e| Some((d, e, figures(&e.result)?)))
        })
        .collect()
}

pub fn parameters_link(rv: &Review, e: &Entry) -> Markup {
    html! { @if let Some(href) = rv.link(e) { a href=(href) { "parameters" } } }
}

/// A drive's name after a square of its colour.
pub fn drive_name(d: &Drive) -> Markup {
    html! { span.swatch style={ "background:" (d.color()) } {} (d.label) }
}

/// One dimension of a switcher: a select named `dim` with (value, text) options.
pub struct Dim {
    pub dim: &'static str,
    pub label: &'static str,
    pub options: Vec<(String, String)>,
}

/// Selects over `dims` and one view per (drive, result) with its key ("dim=value;..." in
/// the order of `dims`): the first view inline; the others inline in a report, fetched on
/// selection in the Bench.
pub fn switcher(
    rv: &Review,
    kind: Fragment,
    dims: &[Dim],
    views: &[(String, &Drive, &Entry)],
) -> Markup {
    let name = kind.name();
    let first = views.first().map(|v| v.0.clone()).unwrap_or_default();
    let selected =
        |dim: &str, value: &str| first.split(';').any(|kv| kv == format!("{dim}={value}"));
    html! {
        @if dims.iter().any(|d| d.options.len() > 1) {
            div.controls {
                @for d in dims {
                    label hidden[d.options.len() < 2] {
                        (d.label) " "
                        select data-switch=(name) data-dim=(d.dim) {
                            @for (value, text) in &d.options {
                                option value=(value) selected[selected(d.dim, value)] { (text) }
                            }
                        }
                    }
                }
            }
        }
        @for (i, (key, d, e)) in views.iter().enumerate() {
            @let fetch = (rv.mode == Mode::Web && i > 0).then_some(e.id).flatten();
            @if let Some(id) = fetch {
                div.view data-switch=(name) data-key=(key) hidden
                    data-src={ "/view/" (name) "/" (id) "?c=" (d.index) } {}
            } @else {
                div.view data-switch=(name) data-key=(key) hidden[i > 0] { (fragment(kind, rv, d, e)) }
            }
        }
        p.none.note data-switch=(name) hidden { "No result for this selection." }
    }
}

/// One view per result of `test`, keyed by drive, for a switcher over drives.
pub fn views_by_drive<'a>(rv: &Review<'a>, test: TestId) -> Vec<(String, &'a Drive, &'a Entry)> {
    rv.drives
        .iter()
        .flat_map(|d| {
            d.of(test)
                .map(move |e| (format!("drive={}", d.index), d, e))
        })
        .collect()
}

/// The drive dimension of a switcher: the drives that have views, by page position.
pub fn drive_dim<'a>(drives: impl Iterator<Item = &'a Drive>) -> Dim {
    let mut options: Vec<(String, String)> = Vec::new();
    for d in drives {
        let value = d.index.to_string();
        if !options.iter().any(|(v, _)| *v == value) {
            options.push((value, d.label.clone()));
        }
    }
    Dim {
        dim: "drive",
        label: "Drive",
        options,
    }
}
