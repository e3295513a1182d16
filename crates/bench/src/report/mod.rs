//! The review report: one self-contained HTML page (inline SVG charts, no scripts, no
//! network) with every test of a results directory, the drive, the test system and every
//! parameter. `ssdlab report DIR` regenerates it.

mod sections;

use std::fmt::Write;

use suite::result::TestResult;
use suite::runner::SuiteRecord;

use crate::chart::escape;

/// Render the report of a results directory's results (and its suite record, if any).
pub fn render(results: &[TestResult], suite: Option<&SuiteRecord>) -> String {
    let mut body = String::new();
    let first = results.first();
    let title = first
        .and_then(|r| r.target.model.clone())
        .unwrap_or_else(|| first.map_or("ssdlab report".into(), |r| r.target.path.clone()));
    let _ = write!(body, "<h1>{}</h1>", escape(&title));
    let _ = write!(
        body,
        "<p class=\"sub\">ssdlab {} review of <code>{}</code>{}</p>",
        escape(&first.map_or(String::new(), |r| r.tool.version.clone())),
        escape(&first.map_or(String::new(), |r| r.target.path.clone())),
        suite.map_or(String::new(), |s| format!(
            ", started {}{}{}",
            escape(&s.started_at),
            if s.quick {
                ", <b>quick mode</b> (scaled durations and regions)"
            } else {
                ""
            },
            if s.complete {
                ""
            } else {
                ", <b>incomplete</b>"
            }
        ))
    );
    body += &sections::toc(results);
    if let Some(r) = first {
        body += &sections::identity(r);
    }
    if let Some(s) = suite {
        body += &sections::suite_steps(s);
    }
    body += &sections::consistency(results);
    body += &sections::corners(results);
    body += &sections::seq_incompressible(results);
    body += &sections::transfer_sweep(results);
    body += &sections::steady_state(results);
    body += &sections::trim(results);
    body += &sections::storage_bench(results);
    body += &sections::custom(results);
    body += &sections::verify(results);
    body += &sections::drive_counters(results);
    body += &sections::parameters(results);
    page(&title, &body)
}

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>{} - ssdlab</title><style>{STYLE}</style></head><body>{body}\
<footer>Made by ssdlab. Throughput in MB/s = 10^6 bytes/s; block sizes and spans in KiB/MiB/GiB.</footer>\
</body></html>\n",
        escape(title)
    )
}

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;\
max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.4}\
h1{margin-bottom:0}h2{border-bottom:2px solid #0072B2;padding-bottom:.2em;margin-top:2em}\
h3{margin-bottom:.3em}.sub{color:#555;margin-top:.3em}\
table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #ccc;padding:.25em .6em;\
text-align:left;vertical-align:top}th{background:#f3f6fa}td.num{text-align:right;font-variant-numeric:tabular-nums}\
.charts{display:flex;flex-wrap:wrap;gap:1em}.charts figure{margin:0;flex:1 1 480px}\
figure svg{width:100%;height:auto;border:1px solid #e3e3e3}\
.ok{color:#00734d;font-weight:bold}.bad{color:#b3261e;font-weight:bold}\
.note{color:#555;font-size:.9em}details{margin:.3em 0}pre{background:#f6f6f6;padding:.6em;\
overflow:auto;font-size:.85em}nav ul{columns:2}footer{margin-top:3em;color:#777;font-size:.85em}";

/// A table from a header and rows of already-escaped cells.
pub(crate) fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut t = String::from("<table><tr>");
    for h in header {
        let _ = write!(t, "<th>{}</th>", escape(h));
    }
    t += "</tr>";
    for row in rows {
        t += "<tr>";
        for cell in row {
            let class = if cell.parse::<f64>().is_ok()
                || cell.ends_with('%') && cell[..cell.len() - 1].parse::<f64>().is_ok()
            {
                " class=\"num\""
            } else {
                ""
            };
            let _ = write!(t, "<td{class}>{cell}</td>");
        }
        t += "</tr>";
    }
    t + "</table>"
}

/// A figure holding an SVG chart.
pub(crate) fn figure(svg: &str) -> String {
    format!("<figure>{svg}</figure>")
}
