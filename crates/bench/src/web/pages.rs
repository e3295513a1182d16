//! The drive list (`/`), a run's review report (`/run/ID`) and one result (`/result/ID`).

use engine::units::capacity;
use maud::{html, Markup};

use crate::db::{Bench, DriveFilter, DriveListing, DriveRow, Result, RunRow};
use crate::view::{fixed, grouped, page, Cell, Drive, Entry, Facts, Mode, Review, Table};

use super::compare::MAX_COMPARE;
use super::{Page, QueryError};

/// What to call each drive on a page: its name, and where two drives on the page share a
/// name, the target its newest run measured (or its id) after it.
pub(super) fn drive_labels(drives: &[DriveListing]) -> Vec<String> {
    let named = |d: &DriveRow| drives.iter().filter(|o| o.drive.name == d.name).count();
    let mut labels: Vec<String> = drives
        .iter()
        .map(|l| {
            let d = &l.drive;
            match (named(d), &l.target) {
                (1, _) => d.name.clone(),
                (_, Some(t)) if *t != d.name => format!("{} ({t})", d.name),
                _ => format!("{} #{}", d.name, d.id),
            }
        })
        .collect();
    for i in 0..labels.len() {
        if labels.iter().filter(|l| **l == labels[i]).count() > 1 {
            labels[i] = format!("{} #{}", labels[i], drives[i].drive.id);
        }
    }
    labels
}

/// The Bench's navigation bar.
pub(super) fn nav() -> Markup {
    html! {
        header.top {
            a href="/" { b { "ssdlab Bench" } }
            a href="/" { "drives" }
            a href="/compare" { "compare all" }
        }
    }
}

fn money(v: Option<f64>, decimals: usize) -> String {
    v.map_or(String::new(), |v| crate::compare::usd(v, decimals))
}

/// Drives on one page of the drive list.
pub(super) const PAGE_DRIVES: u64 = 50;

/// Runs the drive list shows under the drives.
const RECENT_RUNS: u64 = 20;

/// The drive list's filters and page from its query; an error names a bad value.
pub(super) fn list_query(
    query: &[(String, String)],
) -> std::result::Result<(DriveFilter, u64), QueryError> {
    let mut f = DriveFilter::default();
    let mut page = 1u64;
    let gb = |name: &str, v: &str| match v.parse::<f64>() {
        Ok(g) if (0.0..1e12).contains(&g) => Ok((g * 1e9) as u64),
        _ => Err(QueryError::bad_value(name, v, "not a capacity in GB")),
    };
    let day = |name: &str, v: &str| match is_day(v) {
        true => Ok(v.to_string()),
        false => Err(QueryError::bad_value(
            name,
            v,
            "not a day of the calendar; give one as YYYY-MM-DD, e.g. 2026-01-31",
        )),
    };
    for (k, v) in query {
        let v = v.trim();
        if v.is_empty() {
            continue;
        }
        if v.len() > 200 {
            return Err(QueryError::TooLong { name: k.clone() });
        }
        let text = Some(v.to_string());
        match k.as_str() {
            "q" => f.text = text,
            "vendor" => f.vendor = text,
            "kind" => f.kind = text,
            "interface" => f.interface = text,
            "nand" => f.nand = text,
            "host" => f.host = text,
            "min_gb" => f.min_capacity_bytes = Some(gb(k, v)?),
            "max_gb" => f.max_capacity_bytes = Some(gb(k, v)?),
            "from" => f.from = Some(day(k, v)?),
            "to" => f.to = Some(day(k, v)?),
            "page" => {
                page = match v.parse::<u64>() {
                    Ok(p) if (1..=1_000_000).contains(&p) => p,
                    _ => return Err(QueryError::bad_value(k, v, "not a page number")),
                }
            }
            _ => {}
        }
    }
    Ok((f, page))
}

/// Whether `v` is a day of the calendar as YYYY-MM-DD: "2026-13-45" would match no run.
fn is_day(v: &str) -> bool {
    let b = v.as_bytes();
    let digits = b.len() == 10
        && (b.iter().enumerate()).all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        });
    let number = |r: std::ops::Range<usize>| v[r].parse::<u32>().unwrap_or(0);
    if !digits {
        return false;
    }
    let (year, month, day) = (number(0..4), number(5..7), number(8..10));
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => 0,
    };
    (1..=days).contains(&day)
}

/// The query of the drive list with these filters, on page `page`.
pub(super) fn list_url(query: &[(String, String)], page: u64) -> String {
    let mut pairs: Vec<String> = query
        .iter()
        .filter(|(k, v)| k != "page" && !v.trim().is_empty())
        .map(|(k, v)| format!("{}={}", percent_encode(k), percent_encode(v.trim())))
        .collect();
    pairs.push(format!("page={page}"));
    format!("/?{}", pairs.join("&"))
}

pub(super) fn percent_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

pub(super) fn index(bench: &Bench, query: &[(String, String)]) -> Result<Page> {
    let (filter, page_no) = match list_query(query) {
        Ok(q) => q,
        Err(e) => return Ok(Page::error(400, &e.to_string())),
    };
    let (drives, total) = bench.drive_page(&filter, (page_no - 1) * PAGE_DRIVES, PAGE_DRIVES)?;
    let interfaces = bench.interfaces()?;
    let runs = bench.recent_runs(RECENT_RUNS)?;
    let run_count = bench.run_count()?;
    let labels = drive_labels(&drives);
    let pages = total.div_ceil(PAGE_DRIVES).max(1);
    let filtered = filter != DriveFilter::default();
    let value = |name: &str| {
        query
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map_or(String::new(), |(_, v)| v.trim().to_string())
    };
    let first = (page_no - 1) * PAGE_DRIVES + 1;
    let body = html! {
        h1 { "The Bench" }
        p.sub {
            (total) @if filtered { " matching" } " drives and " (run_count) " runs in "
            code { (bench.location()) }
            ". Pick drives to compare them the way the reviews did, or open a run's full report."
        }
        @if total == 0 && !filtered {
            p {
                "No runs stored yet: every " code { "ssdlab suite" } " or " code { "ssdlab run" }
                " stores its results here as it finishes (or " code { "ssdlab bench import DIR" } ")."
            }
        } @else {
            h2 id="drives-heading" { "Drives" }
            form method="get" action="/" id="drive-query" {
                div.controls {
                    input type="search" name="q" value=(value("q")) placeholder="name, model or serial" aria-label="Name, model or serial";
                    input type="text" name="vendor" value=(value("vendor")) placeholder="vendor" aria-label="Vendor" size="10";
                    select name="kind" aria-label="Kind" {
                        @for (k, shown) in [("", "every kind"), ("block", "block"), ("file", "file"), ("sim", "sim")] {
                            option value=(k) selected[value("kind") == k] { (shown) }
                        }
                    }
                    select name="interface" aria-label="Interface" {
                        option value="" { "every interface" }
                        @for i in &interfaces {
                            option value=(i) selected[value("interface") == *i] { (i) }
                        }
                    }
                    input type="text" name="nand" value=(value("nand")) placeholder="NAND" aria-label="NAND" size="8";
                    input type="number" name="min_gb" value=(value("min_gb")) placeholder="min GB" aria-label="Capacity from (GB)" min="0" step="any";
                    input type="number" name="max_gb" value=(value("max_gb")) placeholder="max GB" aria-label="Capacity to (GB)" min="0" step="any";
                    label { "runs from " input type="date" name="from" value=(value("from")); }
                    label { "to " input type="date" name="to" value=(value("to")); }
                    input type="text" name="host" value=(value("host")) placeholder="bench host" aria-label="Bench host" size="10";
                    button type="submit" { "Filter" }
                    @if filtered { a href="/" { "clear" } }
                }
            }
            @if drives.is_empty() {
                p { "No drives on this page match." }
            } @else {
            form method="get" action="/compare" id="drive-form" {
                div.controls {
                    // Unticked, the comparison takes the drives these filters let through.
                    @for (k, v) in query.iter().filter(|(k, v)| !["page", "d", "deviating"].contains(&k.as_str()) && !v.trim().is_empty()) {
                        input type="hidden" name=(k) value=(v.trim());
                    }
                    button type="submit" { "Compare" }
                    label {
                        input type="checkbox" name="deviating" value="include" checked[value("deviating") == "include"];
                        " include results that deviate from the methodology (quick, scaled, shortened)"
                    }
                    span.note {
                        @if total <= MAX_COMPARE {
                            "no drive ticked compares " @if total > 1 { "all " (total) } @else { "it" }
                            @if filtered { " matching" }
                        } @else {
                            "tick up to " (MAX_COMPARE) " drives"
                        }
                    }
                }
                div.wide { table id="drives" {
                    tr { th {} th { "drive" } th { "kind" } th { "interface" } th { "capacity" } th { "controller" } th { "NAND" }
                         th { "DRAM" } th { "price" } th { "$/GB" } th { "runs" } th { "last run" } }
                    @for (d, label) in drives.iter().zip(&labels) {
                        (drive_row(d, label))
                    }
                } }
            }
            }
            nav.pages aria-label="Pages" {
                "Drives " (first.min(total)) "–" ((first + drives.len() as u64).saturating_sub(1)) " of " (total)
                ", page " (page_no) " of " (pages) ". "
                @if page_no > 1 { a rel="prev" href=(list_url(query, page_no - 1)) { "previous" } " " }
                @if page_no < pages { a rel="next" href=(list_url(query, page_no + 1)) { "next" } }
            }
            (runs_table(&runs))
        }
    };
    Ok(Page::html_page(page(
        "Drives",
        "ssdlab Bench",
        Some(nav()),
        body,
    )))
}

fn drive_row(listing: &DriveListing, label: &str) -> Markup {
    let d = &listing.drive;
    let details: Vec<&str> = [
        d.model.as_deref().filter(|m| *m != d.name),
        d.serial.as_deref(),
        d.firmware.as_deref(),
        listing.target.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect();
    let notes = d.specs.notes.as_deref().unwrap_or("");
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    html! {
        tr {
            td { input type="checkbox" name="d" value=(d.id) aria-label={ "select " (label) }; }
            td {
                a href={ "/compare?d=" (d.id) } { (label) }
                div.note { (details.join(" \u{b7} ")) @if !notes.is_empty() { br; (notes) } }
            }
            td { (d.kind) }
            td { (opt(&d.interface)) }
            td.num { (capacity(d.capacity_bytes)) }
            td { (opt(&d.specs.controller)) }
            td { (opt(&d.specs.nand)) }
            td { (opt(&d.specs.dram)) }
            td.num { (money(d.specs.price_usd, 2)) }
            td.num { (money(d.price_per_gb(), 3)) }
            td.num { (d.runs) }
            td { (d.last_run.as_deref().unwrap_or("")) }
        }
    }
}

fn runs_table(runs: &[RunRow]) -> Markup {
    let mut t = Table::new(&[
        "run", "drive", "target", "started", "kind", "status", "results",
    ]);
    for r in runs {
        t.row(vec![
            html! { a href={ "/run/" (r.id) } { "run " (r.id) } }.into(),
            html! { a href={ "/compare?d=" (r.drive_id) } { (r.drive) } }.into(),
            html! { code { (r.target_spec) } }.into(),
            r.started_at.clone().into(),
            format!("{}{}", r.what(), if r.quick { ", quick" } else { "" }).into(),
            html! { @if r.complete { span.ok { "complete" } } @else { span.bad { "incomplete" } } }
                .into(),
            Cell::Num(r.results.to_string()),
        ]);
    }
    html! { h2 id="runs" { "Newest runs" } (t) }
}

/// A run's review: the report of its results, with the Bench's links.
pub(super) fn run(bench: &Bench, id: i64) -> Result<Page> {
    let Some(run) = bench.run(id)? else {
        return Ok(Page::error(
            404,
            &format!("There is no run {id} in the Bench."),
        ));
    };
    let stored = bench.results_of_run(id)?;
    let entries: Vec<Entry> = stored
        .into_iter()
        .map(|s| Entry {
            id: Some(s.id),
            result: s.result,
        })
        .collect();
    let drive = Drive {
        label: run.drive.clone(),
        index: 0,
        facts: entries
            .first()
            .map(|e| Facts::of(&e.result))
            .unwrap_or_default(),
        entries,
    };
    let drives = [drive];
    let review = Review {
        drives: &drives,
        mode: Mode::Web,
        suite: None,
    };
    let body = html! {
        h1 { "Run " (id) ": " (run.drive) }
        p.sub {
            code { (run.target_spec) } ", started " (run.started_at) ", "
            @if run.complete { span.ok { "complete" } } @else { span.bad { "incomplete" } }
            @if run.quick { ", quick mode (scaled durations and regions)" }
            " · " a href={ "/compare?d=" (run.drive_id) } { "compare this drive" }
        }
        @if drives[0].entries.is_empty() {
            p { "Run " (id) " has no stored results." }
        } @else {
            (review.body())
        }
    };
    Ok(Page::html_page(page(
        &format!("Run {id}"),
        "ssdlab Bench",
        Some(nav()),
        body,
    )))
}

/// One stored result: what it is, its figures, its parameters as a table.
pub(super) fn result(bench: &Bench, id: i64) -> Result<Page> {
    let Some(stored) = bench.result(id)? else {
        return Ok(Page::error(
            404,
            &format!("There is no result {id} in the Bench."),
        ));
    };
    let r = &stored.result;
    let drive = bench
        .drive(stored.drive_id)?
        .map_or_else(|| format!("drive {}", stored.drive_id), |d| d.name);
    let run = bench.run(stored.run_id)?;
    let flag = |ok: bool, yes: &str, no: &str| {
        html! { span class=(if ok { "ok" } else { "bad" }) { (if ok { yes } else { no }) } }
    };
    let mut t = Table::new(&["", ""]);
    let mut row = |k: &str, v: Cell| t.row(vec![k.into(), v]);
    row("Test", r.test.name().into());
    row(
        "Variant",
        r.variant.clone().unwrap_or_else(|| "–".into()).into(),
    );
    row(
        "Drive",
        html! { a href={ "/compare?d=" (stored.drive_id) } { (drive) } }.into(),
    );
    row(
        "Run",
        html! {
            a href={ "/run/" (stored.run_id) } { "run " (stored.run_id) }
            @if let Some(run) = &run { " of " code { (run.target_spec) } }
        }
        .into(),
    );
    row("Started", r.started_at.clone().into());
    row(
        "Complete",
        flag(r.complete, "yes", "no (incomplete)").into(),
    );
    row("Clock", format!("{:?}", r.clock).to_lowercase().into());
    row("ssdlab", r.tool.version.clone().into());
    row("IOPS", Cell::Num(grouped(Some(r.summary.iops), 0)));
    row("MB/s", Cell::Num(fixed(Some(r.summary.mbps), 1)));
    if let Some(wa) = r.write_amplification {
        row(
            "Write amplification",
            format!(
                "{:.2} cumulative, {} steady",
                wa.cumulative,
                fixed(wa.steady_state, 2)
            )
            .into(),
        );
    }
    if let Some(h) = r.host_writes {
        row(
            "Host writes (drive / ssdlab)",
            html! { (h.drive_bytes) " / " (h.ssdlab_bytes) " bytes" @if !h.agrees { " " span.bad { "(disagree)" } } }.into(),
        );
    }
    for w in &r.warnings {
        row("Warning", html! { span.bad { (w) } }.into());
    }
    let pretty = |v: &serde_json::Value| serde_json::to_string_pretty(v).unwrap_or_default();
    let body = html! {
        h1 { (r.label) }
        p.sub { "result " (id) }
        (t)
        h2 id="parameters" { "Parameters" }
        @if r.deviations.is_empty() { p { "No deviations from the methodology." } }
        (crate::view::sections::parameters::of(r))
        details {
            summary { "Analysis, summary, drive identity and test system (JSON)" }
            pre id="analysis" { (if r.analysis.is_none() { "none".to_string() } else { pretty(&serde_json::to_value(&r.analysis).unwrap_or_default()) }) }
            pre { (pretty(&serde_json::to_value(&r.summary).unwrap_or_default())) }
            pre { (pretty(&serde_json::to_value(&r.target).unwrap_or_default())) }
            pre { (pretty(&serde_json::to_value(&r.system).unwrap_or_default())) }
        }
    };
    Ok(Page::html_page(page(
        &format!("Result {id}: {}", r.label),
        "ssdlab Bench",
        Some(nav()),
        body,
    )))
}
