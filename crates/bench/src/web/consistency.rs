//! The consistency comparison: for every drive and spare area the reviews' three charts
//! (the whole run on a log scale, the steady state on a log and on a linear scale), all
//! rendered into the page with shared axes; two selectors (`#consistency-drive`,
//! `#consistency-spare`) show one set at a time. Then the steady-state numbers of every
//! drive side by side.

use std::fmt::Write as _;

use suite::result::TestResult;

use crate::chart::{escape, Axis, NumberFormat, Series, XYChart};
use crate::db::StoredResult;
use crate::report::{figure, table};

use super::bars::{bar_figure, BarRowSrc, Better};
use super::compare::{marked, Drive};
use super::{fixed, result_link, sources};

/// "default" for the drive's own spare area, else the percentage ("25").
fn spare_key(r: &TestResult) -> String {
    match r.analysis["spare_pct"].as_f64() {
        Some(p) if p > 0.0 => format!("{p}"),
        _ => match r.variant.as_deref().and_then(|v| v.strip_prefix("spare-")) {
            Some(p) => p.to_string(),
            None => "default".into(),
        },
    }
}

fn spare_name(key: &str) -> String {
    if key == "default" {
        "default spare area".into()
    } else {
        format!("{key}% spare area")
    }
}

/// Axes shared by every chart set, so switching drives compares like with like.
struct Frame {
    duration: f64,
    from: f64,
    log: Option<(f64, f64)>,
    linear_top: f64,
}

fn frame(all: &[&StoredResult]) -> Frame {
    let duration = all
        .iter()
        .map(|r| r.result.per_second.len() as f64)
        .fold(1.0, f64::max);
    let from = all
        .iter()
        .filter_map(|r| r.result.analysis["steady_from_s"].as_f64())
        .fold(0.0, f64::max)
        .min(duration - 1.0)
        .max(0.0);
    let iops = all
        .iter()
        .flat_map(|r| r.result.per_second.iter().map(|p| p.iops))
        .filter(|v| v.is_finite() && *v > 0.0);
    let (lo, hi) = iops.fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    let log = (hi > 0.0).then(|| {
        let lo = 10f64.powf(lo.log10().floor()).max(1.0);
        (lo, 10f64.powf(hi.log10().ceil()).max(lo * 10.0))
    });
    // Topped at 40K or 50K as the reviews did, higher only if a drive needs it.
    let p99 = all
        .iter()
        .filter_map(|r| r.result.analysis["steady_state"]["p99"].as_f64())
        .fold(0.0, f64::max);
    let linear_top = [40_000.0, 50_000.0]
        .into_iter()
        .find(|&t| p99 <= t)
        .unwrap_or((p99 * 1.2 / 10_000.0).ceil() * 10_000.0);
    Frame {
        duration,
        from,
        log,
        linear_top,
    }
}

fn log_axis(f: &Frame) -> Axis {
    match f.log {
        Some((lo, hi)) => Axis::log10("IOPS").range(lo, hi),
        None => Axis::log10("IOPS"),
    }
}

/// The three charts of one result.
fn chart_set(d: &Drive, r: &StoredResult, f: &Frame) -> String {
    let res = &r.result;
    let name = format!("{}, {}", marked(&d.label, res), spare_name(&spare_key(res)));
    let points = |lo: f64| -> Vec<(f64, f64)> {
        res.per_second
            .iter()
            .filter(|p| p.covered_s.is_none() && p.t as f64 >= lo)
            .map(|p| (p.t as f64, p.iops))
            .collect()
    };
    let chart = |title: &str, lo: f64, y: Axis| {
        let c = XYChart::new(
            title,
            Axis::linear("Time (s)").range(lo, f.duration.max(lo + 1.0)),
            y,
        )
        .subtitle(&name)
        .series(Series::dots(&name, points(lo)).color(d.color));
        figure(&c.to_svg())
    };
    let mut s = String::from("<div class=\"charts\">");
    s += &chart("4 KiB random write, QD32: the whole run", 0.0, log_axis(f));
    s += &chart(
        &format!("Steady state from {:.0} s (log scale)", f.from),
        f.from,
        log_axis(f),
    );
    s += &chart(
        &format!("Steady state from {:.0} s (linear scale)", f.from),
        f.from,
        Axis::linear("IOPS")
            .range(0.0, f.linear_top)
            .format(NumberFormat::Si),
    );
    s + "</div>" + &sources(&[(name, r.id)])
}

pub(super) fn section(drives: &[Drive]) -> String {
    let sets: Vec<(&Drive, &StoredResult, String)> = drives
        .iter()
        .flat_map(|d| {
            d.of("consistency")
                .map(move |r| (d, r, spare_key(&r.result)))
        })
        .collect();
    let Some((first_drive, _, _)) = sets.first() else {
        return String::new();
    };
    let mut spares: Vec<String> = sets.iter().map(|(_, _, k)| k.clone()).collect();
    spares.sort_by(|a, b| {
        let n = |k: &str| k.parse::<f64>().unwrap_or(-1.0);
        n(a).total_cmp(&n(b))
    });
    spares.dedup();
    let first_spare = if sets
        .iter()
        .any(|(d, _, k)| d.row.id == first_drive.row.id && *k == spares[0])
    {
        spares[0].clone()
    } else {
        sets[0].2.clone()
    };
    let f = frame(&sets.iter().map(|(_, r, _)| *r).collect::<Vec<_>>());

    let mut s = String::from(
        "<p class=\"note\">4 KiB random writes at QD32 over the whole tested span after a \
         sequential fill; IOPS in every second. The drop shows where the spare area ran out; the \
         steady state depends on garbage collection and spare area. All drives share the axes.</p>\
         <div class=\"controls\"><label>Drive <select id=\"consistency-drive\">",
    );
    let mut seen = Vec::new();
    for (d, _, _) in &sets {
        if !seen.contains(&d.row.id) {
            seen.push(d.row.id);
            let sel = if d.row.id == first_drive.row.id {
                " selected"
            } else {
                ""
            };
            let _ = write!(
                s,
                "<option value=\"{}\"{sel}>{}</option>",
                d.row.id,
                escape(&d.label)
            );
        }
    }
    s += "</select></label><label>Spare area <select id=\"consistency-spare\">";
    for k in &spares {
        let sel = if *k == first_spare { " selected" } else { "" };
        let _ = write!(
            s,
            "<option value=\"{}\"{sel}>{}</option>",
            escape(k),
            escape(&spare_name(k))
        );
    }
    s += "</select></label></div>";
    for (d, r, k) in &sets {
        let shown = d.row.id == first_drive.row.id && *k == first_spare;
        let _ = write!(
            s,
            "<div class=\"cset\" data-drive=\"{}\" data-spare=\"{}\"{}>{}</div>",
            d.row.id,
            escape(k),
            if shown { "" } else { " hidden" },
            chart_set(d, r, &f)
        );
    }
    s += "<p id=\"consistency-none\" hidden>No consistency result of this drive at this spare area.</p>";

    // Steady state of every drive: mean IOPS per spare area, then the numbers.
    let rows = drives
        .iter()
        .map(|d| {
            let found: Vec<Option<&StoredResult>> = spares
                .iter()
                .map(|k| d.of("consistency").find(|r| spare_key(&r.result) == *k))
                .collect();
            BarRowSrc {
                label: d.label.clone(),
                values: found
                    .iter()
                    .map(|r| {
                        r.and_then(|r| r.result.analysis["steady_state"]["mean"].as_f64())
                            .unwrap_or(f64::NAN)
                    })
                    .collect(),
                ids: found.iter().map(|r| r.map(|r| r.id)).collect(),
            }
        })
        .collect();
    let groups: Vec<String> = spares.iter().map(|k| spare_name(k)).collect();
    let groups: Vec<&str> = groups.iter().map(String::as_str).collect();
    s += "<h3>Steady state</h3>";
    s += &bar_figure(
        "4 KiB random write, QD32: steady-state mean",
        "IOPS",
        Better::Higher,
        &groups,
        NumberFormat::Grouped(0),
        rows,
    );
    let table_rows: Vec<Vec<String>> = sets
        .iter()
        .map(|(d, r, k)| {
            let a = &r.result.analysis;
            let g = |key: &str| fixed(a["steady_state"][key].as_f64(), 0);
            vec![
                escape(&marked(&d.label, &r.result)),
                escape(&spare_name(k)),
                g("mean"),
                g("median"),
                g("min"),
                g("stddev"),
                g("p1"),
                g("p99"),
                a["drop_s"]
                    .as_u64()
                    .map_or("none".into(), |t| format!("{t} s")),
                fixed(r.result.write_amplification.and_then(|w| w.steady_state), 2),
                result_link(r.id, "parameters"),
            ]
        })
        .collect();
    s += &table(
        &[
            "drive",
            "spare area",
            "mean IOPS",
            "median",
            "min",
            "std dev",
            "p1",
            "p99",
            "drop at",
            "WA (steady)",
            "",
        ],
        &table_rows,
    );
    s + SCRIPT
}

/// Shows the chart set of the selected drive and spare area.
const SCRIPT: &str = "<script>(function(){\
var d=document.getElementById('consistency-drive'),s=document.getElementById('consistency-spare'),\
none=document.getElementById('consistency-none');\
function show(){var found=false;\
document.querySelectorAll('.cset').forEach(function(c){\
var on=c.dataset.drive===d.value&&c.dataset.spare===s.value;c.hidden=!on;found=found||on;});\
none.hidden=found;}\
d.addEventListener('change',show);s.addEventListener('change',show);show();})();</script>";
