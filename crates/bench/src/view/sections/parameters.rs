//! Every parameter of every result as a readable table, with its preconditioning and its
//! deviations from the methodology. The report has them all; the Bench shows one per
//! result page.

use maud::{html, Markup};

use suite::result::TestResult;

use crate::view::review::Review;
use crate::view::{human_bytes, marked, Section, Table};

/// The anchor of a result's parameters in a report.
pub fn anchor(r: &TestResult) -> String {
    format!("p-{}", r.file_stem())
}

/// "span_bytes" -> "Span"; values by unit: bytes in KiB/MiB, nanoseconds in seconds.
fn readable(key: &str, v: &serde_json::Value) -> (String, String) {
    let (name, value) = if let (Some(stem), Some(n)) = (key.strip_suffix("_bytes"), v.as_f64()) {
        (stem, format!("{} ({} bytes)", human_bytes(Some(n)), n))
    } else if let (Some(stem), Some(n)) = (key.strip_suffix("_ns"), v.as_f64()) {
        (stem, format!("{} s", n / 1e9))
    } else if let (Some(stem), Some(n)) = (key.strip_suffix("_s"), v.as_f64()) {
        (stem, format!("{n} s"))
    } else if let (Some(stem), Some(n)) = (key.strip_suffix("_pct"), v.as_f64()) {
        (stem, format!("{n}%"))
    } else {
        let value = match v {
            serde_json::Value::Null => "–".to_string(),
            serde_json::Value::String(s) => s.clone(),
            serde_json::Value::Bool(b) => if *b { "yes" } else { "no" }.to_string(),
            other => other.to_string(),
        };
        (key, value)
    };
    let words = name.replace(['_', '.'], " ");
    let words = match words.as_str() {
        "qd" => "queue depth".to_string(),
        _ => words,
    };
    (words, value)
}

/// Nested objects flattened to "limit duration", "data kind"...
fn flatten(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        _ => {
            let last = prefix.rsplit('.').next().unwrap_or(prefix);
            let (name, value) = readable(last, v);
            let path = prefix.rsplit_once('.').map_or(String::new(), |(p, _)| {
                format!("{} ", p.replace(['_', '.'], " "))
            });
            out.push((format!("{path}{name}"), value));
        }
    }
}

/// One result's parameters, preconditioning and deviations.
pub fn of(r: &TestResult) -> Markup {
    let mut rows = Vec::new();
    flatten("", &r.parameters.to_value(), &mut rows);
    let mut table = Table::new(&["parameter", "value"]);
    for (k, v) in rows {
        table.row(vec![k.into(), v.into()]);
    }
    html! {
        @for d in &r.deviations { p.bad { "Deviation from the methodology: " (d) } }
        @for a in &r.adaptations { p.note { "Fitted to this target: " (a) } }
        @if !r.complete { p.bad { "Incomplete: " (match &r.stopped {
            Some(engine::driver::Stopped::Interrupted) => "interrupted".to_string(),
            Some(engine::driver::Stopped::Failed(why)) => format!("failed: {why}"),
            None => "the run did not finish".to_string(),
        }) } }
        @for p in &r.preconditioning {
            p {
                (p.name) ": " (p.description)
                @if let Some(m) = &p.method { " (" (m) ")" }
                @if !p.complete { " " span.bad { "(incomplete)" } }
            }
        }
        (table)
    }
}

pub fn section(rv: &Review) -> Markup {
    html! {
        p.note { "Every parameter of every measurement, and every deviation from the methodology." }
        @for d in rv.drives {
            @for e in &d.entries {
                details id=(anchor(&e.result)) {
                    summary {
                        @if rv.multi() { (d.label) ": " }
                        (marked(&e.result.label, &e.result)) " "
                        span.note { (e.result.started_at) }
                        @let shown = Section::of(e.result.test);
                        " " span.note { "(in " a href={ "#" (shown.anchor()) } { (shown.title()) } ")" }
                    }
                    (of(&e.result))
                }
            }
        }
    }
}
