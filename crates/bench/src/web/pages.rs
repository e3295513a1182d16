//! The drive list (`/`), a run's review report (`/run/ID`) and one result (`/result/ID`).

use maud::{html, Markup};

use crate::db::{Bench, DriveRow, Result, RunRow};
use crate::view::{capacity, fixed, grouped, page, Cell, Drive, Entry, Facts, Mode, Review, Table};

use super::Page;

/// What to call each drive on a page: its name, and where two drives share a name, the
/// target the newest run measured (or its id) after it.
pub(super) fn drive_labels(drives: &[DriveRow], runs: &[RunRow]) -> Vec<String> {
    let target = |d: &DriveRow| {
        runs.iter()
            .find(|r| r.drive_id == d.id)
            .map(|r| &r.target_spec)
    };
    let named = |d: &DriveRow| drives.iter().filter(|o| o.name == d.name).count();
    let mut labels: Vec<String> = drives
        .iter()
        .map(|d| match (named(d), target(d)) {
            (1, _) => d.name.clone(),
            (_, Some(t)) if *t != d.name => format!("{} ({t})", d.name),
            _ => format!("{} #{}", d.name, d.id),
        })
        .collect();
    for i in 0..labels.len() {
        if labels.iter().filter(|l| **l == labels[i]).count() > 1 {
            labels[i] = format!("{} #{}", labels[i], drives[i].id);
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

pub(super) fn index(bench: &Bench) -> Result<Page> {
    let drives = bench.drives()?;
    let runs = bench.runs()?;
    let labels = drive_labels(&drives, &runs);
    let mut kinds: Vec<&str> = drives.iter().map(|d| d.kind.as_str()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    let body = html! {
        h1 { "The Bench" }
        p.sub {
            (drives.len()) " drives and " (runs.len()) " runs in " code { (bench.path().display()) }
            ". Pick drives to compare them the way the reviews did, or open a run's full report."
        }
        @if drives.is_empty() {
            p {
                "No runs stored yet: every " code { "ssdlab suite" } " or " code { "ssdlab run" }
                " stores its results here as it finishes (or " code { "ssdlab bench import DIR" } ")."
            }
        } @else {
            h2 id="drives-heading" { "Drives" }
            form method="get" action="/compare" id="drive-form" {
                div.controls {
                    input type="search" id="drive-filter" placeholder="Filter drives" aria-label="Filter drives";
                    select id="drive-kind" aria-label="Kind" {
                        option value="" { "every kind" }
                        @for k in &kinds { option value=(k) { (k) } }
                    }
                    button type="submit" { "Compare" }
                    span.note { "no drive ticked compares them all" }
                }
                div.wide { table id="drives" {
                    tr { th {} th { "drive" } th { "kind" } th { "capacity" } th { "controller" } th { "NAND" }
                         th { "DRAM" } th { "price" } th { "$/GB" } th { "runs" } th { "last run" } }
                    @for (d, label) in drives.iter().zip(&labels) {
                        (drive_row(d, label, &runs))
                    }
                } }
            }
            (runs_table(&runs, &drives, &labels))
        }
    };
    Ok(Page::html_page(page(
        "Drives",
        "ssdlab Bench",
        Some(nav()),
        body,
    )))
}

fn drive_row(d: &DriveRow, label: &str, runs: &[RunRow]) -> Markup {
    let mut targets: Vec<&str> = runs
        .iter()
        .filter(|r| r.drive_id == d.id)
        .map(|r| r.target_spec.as_str())
        .collect();
    targets.dedup();
    let details: Vec<&str> = [
        d.model.as_deref().filter(|m| *m != d.name),
        d.serial.as_deref(),
        d.firmware.as_deref(),
    ]
    .into_iter()
    .flatten()
    .chain(targets.first().copied())
    .collect();
    let notes = d.specs.notes.as_deref().unwrap_or("");
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    let search = [label, &details.join(" "), notes]
        .into_iter()
        .chain(
            [&d.specs.controller, &d.specs.nand, &d.specs.dram].map(|v| v.as_deref().unwrap_or("")),
        )
        .collect::<Vec<&str>>()
        .join(" ")
        .to_lowercase();
    html! {
        tr data-kind=(d.kind) data-text=(search) {
            td { input type="checkbox" name="d" value=(d.id) aria-label={ "select " (label) }; }
            td {
                a href={ "/compare?d=" (d.id) } { (label) }
                div.note { (details.join(" \u{b7} ")) @if !notes.is_empty() { br; (notes) } }
            }
            td { (d.kind) }
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

fn runs_table(runs: &[RunRow], drives: &[DriveRow], labels: &[String]) -> Markup {
    let label = |id: i64| {
        drives
            .iter()
            .position(|d| d.id == id)
            .map_or(String::new(), |i| labels[i].clone())
    };
    let mut t = Table::new(&[
        "run", "drive", "target", "started", "kind", "status", "results",
    ]);
    for r in runs {
        t.row(vec![
            html! { a href={ "/run/" (r.id) } { "run " (r.id) } }.into(),
            html! { a href={ "/compare?d=" (r.drive_id) } { (label(r.drive_id)) } }.into(),
            html! { code { (r.target_spec) } }.into(),
            r.started_at.clone().into(),
            format!("{}{}", r.kind, if r.quick { ", quick" } else { "" }).into(),
            html! { @if r.complete { span.ok { "complete" } } @else { span.bad { "incomplete" } } }
                .into(),
            Cell::Num(r.results.to_string()),
        ]);
    }
    html! { h2 id="runs" { "Runs" } (t) }
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
        id: Some(run.drive_id),
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
    row("Test", r.test.clone().into());
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
            pre id="analysis" { (if r.analysis.is_null() { "none".to_string() } else { pretty(&r.analysis) }) }
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
