//! The comparisons that are not plain bar charts: transfer-size curves overlaid, the TRIM
//! table, and Storage Bench per trace.

use std::fmt::Write as _;

use crate::chart::{escape, format_bytes, Axis, NumberFormat, Series, XYChart};
use crate::db::StoredResult;
use crate::report::{figure, table};

use super::bars::{bar_figure, BarRowSrc, Better};
use super::compare::{marked, Drive};
use super::{fixed, result_link, sources};

pub(super) fn transfer_sweep(drives: &[Drive]) -> String {
    let mut s = String::new();
    let mut rows = Vec::new();
    for (dir, name) in [("read", "read"), ("write", "write")] {
        let found: Vec<(&Drive, &StoredResult)> = drives
            .iter()
            .filter_map(|d| d.find("transfer-sweep", Some(dir)).map(|r| (d, r)))
            .collect();
        if found.is_empty() {
            continue;
        }
        let setup = |r: &StoredResult| {
            let p = &r.result.parameters;
            format!(
                "QD{}, {} region",
                p["qd"].as_u64().unwrap_or(0),
                p["region_bytes"].as_f64().map_or("?".into(), format_bytes)
            )
        };
        let setups: Vec<String> = found.iter().map(|(_, r)| setup(r)).collect();
        let mut subtitle = if setups.iter().all(|x| *x == setups[0]) {
            setups[0].clone()
        } else {
            "parameters differ between drives: see each result".into()
        };
        if let [(d, _)] = found.as_slice() {
            // One series has no legend: name the drive.
            subtitle = format!("{}, {subtitle}", d.label);
        }
        let mut c = XYChart::new(
            &format!("Sequential {name}: MB/s against transfer size"),
            Axis::log2("Transfer size"),
            Axis::linear("MB/s"),
        )
        .subtitle(&subtitle);
        for (d, r) in &found {
            c.push(
                Series::line(
                    &marked(&d.label, &r.result),
                    r.result.points.iter().map(|p| (p.x, p.summary.mbps)),
                )
                .color(d.color),
            );
            let a = &r.result.analysis;
            let bytes = |k: &str| a[k].as_f64().map_or("-".into(), format_bytes);
            rows.push(vec![
                escape(&marked(&d.label, &r.result)),
                name.to_string(),
                fixed(a["peak_mbps"].as_f64(), 1),
                bytes("peak_at_bytes"),
                bytes("reaches_90pct_at_bytes"),
                result_link(r.id, "parameters"),
            ]);
        }
        let links: Vec<(String, i64)> =
            found.iter().map(|(d, r)| (d.label.clone(), r.id)).collect();
        s += &format!("<div>{}{}</div>", figure(&c.to_svg()), sources(&links));
    }
    if s.is_empty() {
        return s;
    }
    format!(
        "<div class=\"charts\">{s}</div>{}",
        table(
            &[
                "drive",
                "direction",
                "peak MB/s",
                "peak at",
                "90% of peak from",
                ""
            ],
            &rows
        )
    )
}

pub(super) fn trim(drives: &[Drive]) -> String {
    let mut rows = Vec::new();
    for d in drives {
        for r in d.of("trim") {
            let a = &r.result.analysis;
            let pass = |k: &str| fixed(a[k]["first_60s_mbps"].as_f64(), 1);
            let functional = a["functional"].as_bool().unwrap_or(false);
            rows.push(vec![
                escape(&marked(&d.label, &r.result)),
                pass("clean"),
                pass("dirty"),
                pass("after_trim"),
                fixed(a["dirty"]["min_mbps"].as_f64(), 1),
                format!(
                    "<span class=\"{}\">{}</span>",
                    if functional { "ok" } else { "bad" },
                    escape(a["verdict"].as_str().unwrap_or("no verdict"))
                ),
                escape(a["trim_method"].as_str().unwrap_or("-")),
                result_link(r.id, "parameters"),
            ]);
        }
    }
    if rows.is_empty() {
        return String::new();
    }
    format!(
        "<p class=\"note\">128 KiB sequential writes for 60 s (MB/s): on a clean drive, after \
         torture with 4 KiB random writes, and after TRIM of the whole span.</p>{}",
        table(
            &[
                "drive",
                "clean",
                "dirty",
                "after TRIM",
                "slowest dirty sample",
                "verdict",
                "TRIM method",
                ""
            ],
            &rows
        )
    )
}

/// A drive's trace replays: the suite's Storage Bench and its own traces' (`trace replay`).
fn replays(d: &Drive) -> Vec<&StoredResult> {
    d.of("storage-bench").chain(d.of("replay")).collect()
}

pub(super) fn storage_bench(drives: &[Drive]) -> String {
    // Results of the same trace (at the same scale) compare; group by it.
    let trace = |r: &StoredResult| {
        r.result.analysis["trace"]
            .as_str()
            .map(str::to_string)
            .or_else(|| r.result.variant.clone())
            .unwrap_or_else(|| "trace".into())
    };
    let mut traces: Vec<String> = Vec::new();
    for d in drives {
        for r in replays(d) {
            if !traces.contains(&trace(r)) {
                traces.push(trace(r));
            }
        }
    }
    let mut s = String::new();
    if !traces.is_empty() {
        s += "<p class=\"note\">Data rate is bytes moved over disk busy time (idle excluded), as \
              the reviews defined it; service time is issue to completion.</p>";
    }
    for t in &traces {
        let found: Vec<(&Drive, &StoredResult)> = drives
            .iter()
            .flat_map(|d| {
                replays(d)
                    .into_iter()
                    .filter(|r| trace(r) == *t)
                    .map(move |r| (d, r))
            })
            .collect();
        let metric = |r: &StoredResult, k: &str| r.result.analysis["metrics"][k].as_f64();
        let bars = |title: &str, unit: &str, better: Better, key: &str, format: NumberFormat| {
            let rows = found
                .iter()
                .map(|(d, r)| BarRowSrc {
                    label: marked(&d.label, &r.result),
                    values: vec![metric(r, key).unwrap_or(f64::NAN)],
                    ids: vec![Some(r.id)],
                })
                .collect();
            bar_figure(&format!("{title}: {t}"), unit, better, &[], format, rows)
        };
        let _ = write!(
            s,
            "<h3>{}</h3><div class=\"charts\">{}{}{}</div>",
            escape(t),
            bars(
                "Average data rate",
                "MB/s",
                Better::Higher,
                "data_rate_mbps",
                NumberFormat::Fixed(1)
            ),
            bars(
                "Disk busy time",
                "seconds",
                Better::Lower,
                "busy_time_s",
                NumberFormat::Fixed(2)
            ),
            bars(
                "Average service time",
                "microseconds",
                Better::Lower,
                "avg_service_time_us",
                NumberFormat::Fixed(0)
            ),
        );
        let rows: Vec<Vec<String>> = found
            .iter()
            .map(|(d, r)| {
                let mut row = vec![escape(&marked(&d.label, &r.result))];
                for (k, dec) in [
                    ("data_rate_mbps", 1),
                    ("read_rate_mbps", 1),
                    ("write_rate_mbps", 1),
                    ("busy_time_s", 2),
                    ("read_busy_time_s", 2),
                    ("write_busy_time_s", 2),
                    ("avg_service_time_us", 0),
                ] {
                    row.push(fixed(metric(r, k), dec));
                }
                row.push(result_link(r.id, "parameters"));
                row
            })
            .collect();
        s += &table(
            &[
                "drive",
                "MB/s",
                "read MB/s",
                "write MB/s",
                "busy (s)",
                "read busy (s)",
                "write busy (s)",
                "service time (us)",
                "",
            ],
            &rows,
        );
    }
    s
}
