//! `/compare?d=ID&d=ID...`: the reviews' comparisons across drives, from each drive's newest
//! result of every test (no `d` compares the drives the drive list's filters let through, if
//! there are at most [`MAX_COMPARE`]); and `/view/KIND/ID?c=N`, the charts
//! of one result that a compare page's selector fetches.

use maud::html;

use crate::compare::{self, Deviating};
use crate::db::{Bench, DriveRow, Result};
use crate::view::{fragment, page, Drive, Entry, Facts, Fragment, Mode, Review};

use super::pages::{drive_labels, list_query, list_url, nav, percent_encode};
use super::{query_id, Page, QueryError, HTML};

/// A page's drive from the Bench: annotated facts first, what the drive says after; and how
/// many of its newest results were left out for deviating from the methodology.
fn drive(
    bench: &Bench,
    row: DriveRow,
    label: String,
    index: usize,
    deviating: Deviating,
) -> Result<(Drive, usize)> {
    let (shown, left_out) = compare::comparable(bench, row.id, deviating)?;
    let entries: Vec<Entry> = shown
        .into_iter()
        .map(|s| Entry {
            id: Some(s.id),
            result: s.result,
        })
        .collect();
    let said = entries
        .first()
        .map(|e| Facts::of(&e.result))
        .unwrap_or_default();
    let facts = Facts {
        model: row.model.clone().or(said.model),
        firmware: row.firmware.clone().or(said.firmware),
        capacity_bytes: row.capacity_bytes,
        controller: row.specs.controller.clone().or(said.controller),
        nand: row.specs.nand.clone().or(said.nand),
        dram: row.specs.dram.clone().or(said.dram),
        price_usd: row.specs.price_usd,
        notes: row.specs.notes.clone(),
    };
    let drive = Drive {
        label,
        index,
        facts,
        entries,
    };
    Ok((drive, left_out.len()))
}

/// `deviating=include` shows the results that deviate from the methodology too.
fn deviating_of(query: &[(String, String)]) -> std::result::Result<Deviating, QueryError> {
    match query.iter().find(|(k, _)| k == "deviating") {
        None => Ok(Deviating::LeftOut),
        Some((_, v)) if v == "include" => Ok(Deviating::Included),
        Some((_, v)) if v == "leave-out" => Ok(Deviating::LeftOut),
        Some((_, v)) => Err(QueryError::bad_value(
            "deviating",
            v,
            "say deviating=include to show results that deviate from the methodology, or \
             leave it out",
        )),
    }
}

/// This page's address with `deviating=include` added.
fn including_deviating(query: &[(String, String)]) -> String {
    let mut pairs: Vec<String> = (query.iter())
        .filter(|(k, _)| k != "deviating")
        .map(|(k, v)| format!("{}={}", percent_encode(k), percent_encode(v)))
        .collect();
    pairs.push("deviating=include".into());
    format!("/compare?{}", pairs.join("&"))
}

/// The most drives one comparison charts: the reviews' charts held about twenty, and each
/// drive's results are read whole.
pub(super) const MAX_COMPARE: u64 = 24;

pub(super) fn page_of(bench: &Bench, query: &[(String, String)]) -> Result<Page> {
    let mut ids: Vec<i64> = Vec::new();
    for (name, value) in query.iter().filter(|(k, _)| k == "d") {
        match query_id(name, value) {
            Ok(id) if !ids.contains(&id) => ids.push(id),
            Ok(_) => {}
            Err(e) => return Ok(Page::error(400, &e.to_string())),
        }
    }
    if ids.len() > MAX_COMPARE as usize {
        return Ok(Page::error(
            400,
            &format!("A comparison shows at most {MAX_COMPARE} drives: tick fewer."),
        ));
    }
    // The drives asked for, read by id; none asked for is those the drive list's filters let
    // through (every drive, unfiltered), when there are few enough to chart.
    let listed = if ids.is_empty() {
        let filter = match list_query(query) {
            Ok((filter, _)) => filter,
            Err(e) => return Ok(Page::error(400, &e.to_string())),
        };
        let (listed, total) = bench.drive_page(&filter, 0, MAX_COMPARE)?;
        if total > MAX_COMPARE {
            return Ok(too_many(total, query));
        }
        listed
    } else {
        let listed = bench.drive_listings(&ids)?;
        if let Some(id) = ids
            .iter()
            .find(|id| !listed.iter().any(|l| l.drive.id == **id))
        {
            return Ok(Page::error(
                404,
                &format!("There is no drive {id} in the Bench."),
            ));
        }
        listed
    };
    let labels = drive_labels(&listed);
    let chosen: Vec<(DriveRow, String)> = listed.into_iter().map(|l| l.drive).zip(labels).collect();
    let deviating = match deviating_of(query) {
        Ok(d) => d,
        Err(e) => return Ok(Page::error(400, &e.to_string())),
    };
    let mut drives = Vec::new();
    let mut left_out = 0;
    for (i, (row, label)) in chosen.into_iter().enumerate() {
        let (d, n) = drive(bench, row, label, i, deviating)?;
        drives.push(d);
        left_out += n;
    }
    let left_out = compare::left_out_note(left_out, "including them");
    let review = Review {
        drives: &drives,
        mode: Mode::Web,
        suite: None,
    };
    let names: Vec<&str> = drives.iter().map(|d| d.label.as_str()).collect();
    let body = html! {
        h1 { "Compare drives" }
        @if drives.is_empty() {
            p { "The Bench holds no drives yet." }
        } @else {
            p.sub {
                (names.join(", ")) ": each drive's newest result of every test. Every chart links to \
                 the stored results that made it."
            }
            @if let Some(why) = &left_out {
                p.note.deviating {
                    (why) ": " a href=(including_deviating(query)) { "include them" } "."
                }
            } @else if deviating == Deviating::Included {
                p.note.deviating {
                    "Results that deviate from the methodology are included, marked (deviates)."
                }
            }
            @if left_out.is_none() && drives.iter().all(|d| d.entries.is_empty()) {
                p { "These drives have no stored results." }
            }
            (review.body())
        }
    };
    Ok(Page::html_page(page(
        "Compare",
        "ssdlab Bench",
        Some(nav()),
        body,
    )))
}

/// The page that asks for fewer drives than `total`, linking to the drive list they came from.
fn too_many(total: u64, query: &[(String, String)]) -> Page {
    let body = html! {
        h1 { "Compare drives" }
        p {
            (total) " drives match, and a comparison charts at most " (MAX_COMPARE) " at once. "
            a href=(list_url(query, 1)) { "Tick the drives to compare, or narrow the filters" } "."
        }
    };
    Page::html_page(page("Compare", "ssdlab Bench", Some(nav()), body))
}

/// The charts of result `id` as the compare page's selector shows them; `c` is the drive's
/// position on that page (its colour).
pub(super) fn view(bench: &Bench, kind: &str, id: i64, query: &[(String, String)]) -> Result<Page> {
    let Some(kind) = Fragment::from_name(kind) else {
        return Ok(Page::not_found());
    };
    let index = match query.iter().find(|(k, _)| k == "c") {
        Some((_, c)) => match c.parse::<usize>() {
            Ok(c) if c < 10_000 => c,
            _ => return Ok(Page::error(400, "c: not a colour index (a small number)")),
        },
        None => 0,
    };
    let Some(stored) = bench.result(id)? else {
        return Ok(Page::error(
            404,
            &format!("There is no result {id} in the Bench."),
        ));
    };
    let listed = bench.drive_listings(&[stored.drive_id])?;
    if listed.is_empty() {
        return Ok(Page::not_found());
    }
    let label = drive_labels(&listed).swap_remove(0);
    let d = Drive {
        label,
        index,
        facts: Facts::default(),
        entries: Vec::new(),
    };
    let e = Entry {
        id: Some(stored.id),
        result: stored.result,
    };
    let drives = [d];
    let review = Review {
        drives: &drives,
        mode: Mode::Web,
        suite: None,
    };
    Ok(Page {
        status: 200,
        content_type: HTML,
        body: fragment(kind, &review, &drives[0], &e).into_string(),
    })
}
