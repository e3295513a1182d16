//! `/compare?d=ID&d=ID...`: the reviews' comparisons across drives, from each drive's newest
//! result of every test. No `d` compares every drive.

use std::fmt::Write as _;

use suite::result::TestResult;

use crate::chart::{escape, palette};
use crate::db::{Bench, DriveRow, Result, StoredResult};
use crate::report::table;

use super::bars::{bar_section, CORNERS, SEQ_INCOMPRESSIBLE, STEADY};
use super::pages::drive_labels;
use super::sections::{storage_bench, transfer_sweep, trim};
use super::{capacity, query_id, Page};

/// A drive on the page: what to call it, its colour in overlaid charts, its results.
pub(super) struct Drive {
    pub row: DriveRow,
    pub label: String,
    pub color: &'static str,
    pub results: Vec<StoredResult>,
}

impl Drive {
    pub fn find(&self, test: &str, variant: Option<&str>) -> Option<&StoredResult> {
        self.results
            .iter()
            .find(|r| r.result.test == test && r.result.variant.as_deref() == variant)
    }

    pub fn of<'a>(&'a self, test: &'a str) -> impl Iterator<Item = &'a StoredResult> + 'a {
        self.results.iter().filter(move |r| r.result.test == test)
    }
}

/// A label with "(incomplete)" after it when the result is.
pub(super) fn marked(label: &str, r: &TestResult) -> String {
    if r.complete {
        label.to_string()
    } else {
        format!("{label} (incomplete)")
    }
}

pub(super) fn page(bench: &Bench, query: &[(String, String)]) -> Result<Page> {
    let mut ids: Vec<i64> = Vec::new();
    for (name, value) in query.iter().filter(|(k, _)| k == "d") {
        match query_id(name, value) {
            Ok(id) if !ids.contains(&id) => ids.push(id),
            Ok(_) => {}
            Err(e) => return Ok(Page::error(400, &e)),
        }
    }
    let all = bench.drives()?;
    let mut rows = Vec::new();
    if ids.is_empty() {
        rows = all;
    } else {
        for id in &ids {
            match all.iter().find(|d| d.id == *id) {
                Some(d) => rows.push(d.clone()),
                None => {
                    return Ok(Page::error(
                        404,
                        &format!("There is no drive {id} in the Bench."),
                    ))
                }
            }
        }
    }
    if rows.is_empty() {
        return Ok(Page::html(
            "Compare",
            "<h1>Compare drives</h1><p>The Bench holds no drives yet.</p>",
        ));
    }
    let labels = drive_labels(&rows, &bench.runs()?);
    let mut drives = Vec::new();
    for (i, (row, label)) in rows.into_iter().zip(labels).enumerate() {
        let results = bench.latest_results(row.id)?;
        drives.push(Drive {
            row,
            label,
            color: palette(i),
            results,
        });
    }

    let sections: Vec<(&str, &str, String)> = vec![
        ("drives", "Drives", drive_table(&drives)),
        (
            "consistency",
            "Performance consistency",
            super::consistency::section(&drives),
        ),
        ("corners", "Four corners", bar_section(&drives, &CORNERS)),
        (
            "seq-incompressible",
            "Incompressible sequential",
            bar_section(&drives, &SEQ_INCOMPRESSIBLE),
        ),
        (
            "transfer-sweep",
            "Performance vs transfer size",
            transfer_sweep(&drives),
        ),
        (
            "steady-state",
            "Steady-state random write",
            bar_section(&drives, &STEADY),
        ),
        ("trim", "TRIM validation", trim(&drives)),
        ("storage-bench", "Storage Bench", storage_bench(&drives)),
    ];
    let names: Vec<String> = drives.iter().map(|d| escape(&d.label)).collect();
    let mut s = format!(
        "<h1>Compare drives</h1><p class=\"sub\">{}: each drive's newest result of every test. \
         Every chart links to the stored results that made it.</p><nav><ul>",
        names.join(", ")
    );
    for (id, title, html) in &sections {
        if !html.is_empty() {
            let _ = write!(s, "<li><a href=\"#{id}\">{title}</a></li>");
        }
    }
    s += "</ul></nav>";
    for (id, title, html) in &sections {
        if !html.is_empty() {
            let _ = write!(s, "<section id=\"{id}\"><h2>{title}</h2>{html}</section>");
        }
    }
    if drives.iter().all(|d| d.results.is_empty()) {
        s += "<p>These drives have no stored results.</p>";
    }
    Ok(Page::html("Compare", &s))
}

fn drive_table(drives: &[Drive]) -> String {
    let opt = |v: &Option<String>| escape(v.as_deref().unwrap_or("-"));
    let rows: Vec<Vec<String>> = drives
        .iter()
        .map(|d| {
            let r = &d.row;
            vec![
                format!(
                    "<span style=\"color:{}\">&#9632;</span> {}",
                    d.color,
                    escape(&d.label)
                ),
                opt(&r.model),
                opt(&r.firmware),
                capacity(r.capacity_bytes),
                opt(&r.specs.controller),
                opt(&r.specs.nand),
                opt(&r.specs.dram),
                r.price_per_gb().map_or("-".into(), |p| format!("${p:.3}")),
                escape(r.specs.notes.as_deref().unwrap_or("")),
            ]
        })
        .collect();
    table(
        &[
            "drive",
            "model",
            "firmware",
            "capacity",
            "controller",
            "NAND",
            "DRAM",
            "$/GB",
            "notes",
        ],
        &rows,
    )
}
