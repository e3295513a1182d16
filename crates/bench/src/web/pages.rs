//! The drive list (`/`), a run's review report (`/run/ID`) and one result (`/result/ID`).

use std::fmt::Write as _;

use crate::chart::escape;
use crate::db::{Bench, DriveRow, Result, RunRow};
use crate::report::table;

use super::{capacity, fixed, result_link, Page};

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

    let mut s = format!(
        "<h1>The Bench</h1><p class=\"sub\">{} drives and {} runs in <code>{}</code>. Pick \
         drives to compare them the way the reviews did, or open a run's full report.</p>",
        drives.len(),
        runs.len(),
        escape(&bench.path().display().to_string())
    );
    if drives.is_empty() {
        s += "<p>No runs stored yet: every <code>ssdlab suite</code> or <code>ssdlab run</code> \
              stores its results here as it finishes (or <code>ssdlab bench import DIR</code>).</p>";
        return Ok(Page::html("Drives", &s));
    }
    s += "<h2 id=\"drives-heading\">Drives</h2><form method=\"get\" action=\"/compare\" id=\"drive-form\">\
          <div class=\"controls\"><input type=\"search\" id=\"drive-filter\" placeholder=\"Filter drives\" \
          aria-label=\"Filter drives\"><select id=\"drive-kind\" aria-label=\"Kind\">\
          <option value=\"\">every kind</option>";
    for k in &kinds {
        let _ = write!(s, "<option value=\"{0}\">{0}</option>", escape(k));
    }
    s += "</select><button type=\"submit\">Compare</button><span class=\"note\">no drive ticked \
          compares them all</span></div><table id=\"drives\"><tr><th></th><th>drive</th><th>kind</th>\
          <th>capacity</th><th>controller</th><th>NAND</th><th>DRAM</th><th>price</th><th>$/GB</th>\
          <th>runs</th><th>last run</th></tr>";
    for (d, label) in drives.iter().zip(&labels) {
        let mut targets: Vec<&str> = runs
            .iter()
            .filter(|r| r.drive_id == d.id)
            .map(|r| r.target_spec.as_str())
            .collect();
        targets.dedup();
        let details: Vec<String> = [
            d.model.as_deref().filter(|m| *m != d.name),
            d.serial.as_deref(),
            d.firmware.as_deref(),
        ]
        .into_iter()
        .flatten()
        .map(str::to_string)
        .chain(targets.first().map(|t| t.to_string()))
        .collect();
        let notes = d.specs.notes.as_deref().unwrap_or("");
        let opt = |v: &Option<String>| escape(v.as_deref().unwrap_or(""));
        let search = [label.as_str(), &details.join(" "), notes]
            .into_iter()
            .chain(
                [&d.specs.controller, &d.specs.nand, &d.specs.dram]
                    .map(|v| v.as_deref().unwrap_or("")),
            )
            .collect::<Vec<&str>>()
            .join(" ")
            .to_lowercase();
        let _ = write!(
            s,
            "<tr data-kind=\"{kind}\" data-text=\"{search}\"><td><input type=\"checkbox\" name=\"d\" \
             value=\"{id}\" aria-label=\"select {name}\"></td><td><a href=\"/compare?d={id}\">{name}</a>\
             <div class=\"note\">{details}{notes}</div></td><td>{kind}</td><td class=\"num\">{cap}</td>\
             <td>{ctl}</td><td>{nand}</td><td>{dram}</td><td class=\"num\">{price}</td>\
             <td class=\"num\">{per_gb}</td><td class=\"num\">{runs}</td><td>{last}</td></tr>",
            kind = escape(&d.kind),
            search = escape(&search),
            id = d.id,
            name = escape(label),
            details = escape(&details.join(" \u{b7} ")),
            notes = if notes.is_empty() {
                String::new()
            } else {
                format!("<br>{}", escape(notes))
            },
            cap = capacity(d.capacity_bytes),
            ctl = opt(&d.specs.controller),
            nand = opt(&d.specs.nand),
            dram = opt(&d.specs.dram),
            price = money(d.specs.price_usd, 2),
            per_gb = money(d.price_per_gb(), 3),
            runs = d.runs,
            last = escape(d.last_run.as_deref().unwrap_or("")),
        );
    }
    s += "</table></form>";
    s += &runs_table(&runs, &drives, &labels);
    s += INDEX_SCRIPT;
    Ok(Page::html("Drives", &s))
}

fn runs_table(runs: &[RunRow], drives: &[DriveRow], labels: &[String]) -> String {
    let label = |id: i64| {
        drives
            .iter()
            .position(|d| d.id == id)
            .map_or(String::new(), |i| labels[i].clone())
    };
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            vec![
                format!("<a href=\"/run/{0}\">run {0}</a>", r.id),
                format!(
                    "<a href=\"/compare?d={}\">{}</a>",
                    r.drive_id,
                    escape(&label(r.drive_id))
                ),
                format!("<code>{}</code>", escape(&r.target_spec)),
                escape(&r.started_at),
                format!(
                    "{}{}",
                    escape(&r.kind),
                    if r.quick { ", quick" } else { "" }
                ),
                if r.complete {
                    "<span class=\"ok\">complete</span>".into()
                } else {
                    "<span class=\"bad\">incomplete</span>".into()
                },
                r.results.to_string(),
            ]
        })
        .collect();
    format!(
        "<h2 id=\"runs\">Runs</h2>{}",
        table(
            &["run", "drive", "target", "started", "kind", "status", "results"],
            &rows
        )
    )
}

/// Filters the drive table by text and kind.
const INDEX_SCRIPT: &str = "<script>(function(){\
var f=document.getElementById('drive-filter'),k=document.getElementById('drive-kind');\
function apply(){var q=f.value.trim().toLowerCase(),kind=k.value;\
document.querySelectorAll('#drives tr[data-kind]').forEach(function(r){\
r.hidden=!((kind===''||r.dataset.kind===kind)&&(q===''||r.dataset.text.indexOf(q)>=0));});}\
f.addEventListener('input',apply);k.addEventListener('change',apply);apply();})();</script>";

pub(super) fn run(bench: &Bench, id: i64) -> Result<Page> {
    let Some(run) = bench.run(id)? else {
        return Ok(Page::error(
            404,
            &format!("There is no run {id} in the Bench."),
        ));
    };
    let stored = bench.results_of_run(id)?;
    let mut links = String::new();
    for r in &stored {
        let _ = write!(
            links,
            "<li>{}</li>",
            result_link(r.id, &escape(&r.result.label))
        );
    }
    let nav = format!(
        "<nav style=\"padding:.5em 0;border-bottom:1px solid #ddd\"><a href=\"/\">ssdlab Bench</a> \
         &rsaquo; run {id} of <a href=\"/compare?d={}\">{}</a> (<code>{}</code>, {})\
         <details><summary>stored results</summary><ul>{links}</ul></details></nav>",
        run.drive_id,
        escape(&run.drive),
        escape(&run.target_spec),
        if run.complete { "complete" } else { "incomplete" },
    );
    if stored.is_empty() {
        return Ok(Page::html(
            &format!("Run {id}"),
            &format!("{nav}<p>Run {id} has no stored results.</p>"),
        ));
    }
    let results: Vec<_> = stored.into_iter().map(|r| r.result).collect();
    let report = crate::report::render(&results, None);
    // The Bench's navigation at the top, and no favicon request.
    let report = report.replacen("</head>", "<link rel=\"icon\" href=\"data:,\"></head>", 1);
    let body = match report.find("<body>") {
        Some(at) => format!("{}{nav}{}", &report[..at + 6], &report[at + 6..]),
        None => report,
    };
    Ok(Page {
        status: 200,
        content_type: super::HTML,
        body,
    })
}

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
        format!(
            "<span class=\"{}\">{}</span>",
            if ok { "ok" } else { "bad" },
            if ok { yes } else { no }
        )
    };
    let mut rows = vec![
        vec!["Test".into(), escape(&r.test)],
        vec![
            "Variant".into(),
            escape(r.variant.as_deref().unwrap_or("-")),
        ],
        vec![
            "Drive".into(),
            format!(
                "<a href=\"/compare?d={}\">{}</a>",
                stored.drive_id,
                escape(&drive)
            ),
        ],
        vec![
            "Run".into(),
            format!(
                "<a href=\"/run/{0}\">run {0}</a>{1}",
                stored.run_id,
                run.map_or(String::new(), |run| format!(
                    " of <code>{}</code>",
                    escape(&run.target_spec)
                ))
            ),
        ],
        vec!["Started".into(), escape(&r.started_at)],
        vec![
            "Complete".into(),
            flag(r.complete, "yes", "no (incomplete)"),
        ],
        vec![
            "Clock".into(),
            escape(&format!("{:?}", r.clock).to_lowercase()),
        ],
        vec!["ssdlab".into(), escape(&r.tool.version)],
        vec!["IOPS".into(), fixed(Some(r.summary.iops), 0)],
        vec!["MB/s".into(), fixed(Some(r.summary.mbps), 1)],
    ];
    if let Some(wa) = r.write_amplification {
        rows.push(vec![
            "Write amplification".into(),
            format!(
                "{:.2} cumulative, {} steady",
                wa.cumulative,
                fixed(wa.steady_state, 2)
            ),
        ]);
    }
    if let Some(h) = r.host_writes {
        rows.push(vec![
            "Host writes (drive / ssdlab)".into(),
            format!(
                "{} / {} bytes{}",
                h.drive_bytes,
                h.ssdlab_bytes,
                flag(h.agrees, "", " (disagree)")
            ),
        ]);
    }
    for w in &r.warnings {
        rows.push(vec![
            "Warning".into(),
            format!("<span class=\"bad\">{}</span>", escape(w)),
        ]);
    }
    let mut s = format!(
        "<h1>{}</h1><p class=\"sub\">result {id}</p>{}",
        escape(&r.label),
        table(&["", ""], &rows)
    );
    s += "<h2>Deviations from the methodology</h2>";
    if r.deviations.is_empty() {
        s += "<p>None.</p>";
    } else {
        s += "<ul>";
        for d in &r.deviations {
            let _ = write!(s, "<li class=\"bad\">{}</li>", escape(d));
        }
        s += "</ul>";
    }
    if !r.preconditioning.is_empty() {
        s += "<h2>Preconditioning</h2><ul>";
        for p in &r.preconditioning {
            let _ = write!(
                s,
                "<li>{}: {}{}{}</li>",
                escape(&p.name),
                escape(&p.description),
                p.method
                    .as_deref()
                    .map_or(String::new(), |m| format!(" ({})", escape(m))),
                if p.complete {
                    ""
                } else {
                    " <span class=\"bad\">(incomplete)</span>"
                }
            );
        }
        s += "</ul>";
    }
    let pretty =
        |v: &serde_json::Value| escape(&serde_json::to_string_pretty(v).unwrap_or_default());
    let _ = write!(
        s,
        "<h2>Parameters</h2><pre id=\"parameters\">{}</pre><h2>Analysis</h2><pre id=\"analysis\">{}</pre>\
         <h2>Summary</h2><pre>{}</pre><details><summary>Drive identity and test system</summary>\
         <pre>{}</pre><pre>{}</pre></details>",
        pretty(&r.parameters),
        if r.analysis.is_null() {
            "none".into()
        } else {
            pretty(&r.analysis)
        },
        pretty(&serde_json::to_value(&r.summary).unwrap_or_default()),
        pretty(&serde_json::to_value(&r.target).unwrap_or_default()),
        pretty(&serde_json::to_value(&r.system).unwrap_or_default()),
    );
    Ok(Page::html(&format!("Result {id}: {}", r.label), &s))
}
