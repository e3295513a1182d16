//! One function per section of the report, each drawing the charts the reviews printed for
//! that test from the results that have it.

use std::fmt::Write;

use suite::result::TestResult;
use suite::runner::SuiteRecord;

use super::{figure, table};
use crate::chart::{escape, Axis, BarChart, NumberFormat, Series, XYChart};

fn of<'a>(results: &'a [TestResult], test: &str) -> Vec<&'a TestResult> {
    results.iter().filter(|r| r.test == test).collect()
}

fn f0(v: f64) -> String {
    format!("{v:.0}")
}

fn f1(v: f64) -> String {
    format!("{v:.1}")
}

fn num(v: &serde_json::Value) -> Option<f64> {
    v.as_f64()
}

fn incomplete(r: &TestResult) -> &'static str {
    if r.complete {
        ""
    } else {
        " <span class=\"bad\">(incomplete)</span>"
    }
}

pub fn toc(results: &[TestResult]) -> String {
    let sections = [
        ("consistency", "Performance consistency"),
        ("corners", "Four corners"),
        ("seq-incompressible", "Incompressible sequential"),
        ("transfer-sweep", "Performance vs transfer size"),
        ("steady-state", "Steady-state random write"),
        ("trim", "TRIM validation"),
        ("storage-bench", "Storage Bench"),
        ("custom", "Custom workloads"),
        ("verify", "Data verification"),
    ];
    let corner = |t: &str| {
        [
            "random-read",
            "random-write",
            "random-write-qd32",
            "seq-read",
            "seq-write",
        ]
        .contains(&t)
    };
    let mut s = String::from("<nav><ul><li><a href=\"#drive\">Drive and test system</a></li>");
    for (id, name) in sections {
        if results.iter().any(|r| {
            r.test == id
                || (id == "corners" && corner(&r.test))
                || (id == "verify" && r.verify.is_some())
        }) {
            let _ = write!(s, "<li><a href=\"#{id}\">{name}</a></li>");
        }
    }
    s + "<li><a href=\"#parameters\">Parameters</a></li></ul></nav>"
}

pub fn identity(r: &TestResult) -> String {
    let t = &r.target;
    let opt = |v: &Option<String>| escape(v.as_deref().unwrap_or("-"));
    let mut rows = vec![
        vec!["Model".into(), opt(&t.model)],
        vec!["Serial".into(), opt(&t.serial)],
        vec!["Firmware".into(), opt(&t.firmware)],
        vec!["Vendor".into(), opt(&t.vendor)],
        vec![
            "Target".into(),
            format!("{} ({})", escape(&t.path), escape(&t.kind)),
        ],
        vec![
            "Capacity".into(),
            format!(
                "{} bytes ({:.1} GB)",
                t.capacity_bytes,
                t.capacity_bytes as f64 / 1e9
            ),
        ],
        vec![
            "Block size".into(),
            format!(
                "{} B logical, {} B physical",
                t.logical_block_bytes, t.physical_block_bytes
            ),
        ],
        vec![
            "Clock".into(),
            escape(&format!("{:?}", r.clock).to_lowercase()),
        ],
    ];
    for (k, v) in t.details.iter().filter(|(k, _)| k.as_str() != "clock") {
        rows.push(vec![escape(k), escape(v)]);
    }
    // What the drive said through its own commands, past what the rows above show.
    if let Some(d) = &t.drive {
        for (k, v) in d.summary().into_iter().skip(4) {
            rows.push(vec![escape(k), escape(&v)]);
        }
    }
    let s = &r.system;
    let sys = vec![
        vec![
            "CPU".into(),
            format!("{} ({} cores)", escape(&s.cpu), s.cores),
        ],
        vec![
            "Memory".into(),
            format!("{:.1} GiB", s.memory_bytes as f64 / (1u64 << 30) as f64),
        ],
        vec!["OS".into(), escape(&s.os)],
        vec!["Kernel".into(), escape(&s.kernel)],
        vec!["Host".into(), escape(&s.hostname)],
    ];
    format!(
        "<h2 id=\"drive\">Drive and test system</h2><div class=\"charts\"><div><h3>Drive</h3>{}</div><div><h3>Test system</h3>{}</div></div>",
        table(&["", ""], &rows),
        table(&["", ""], &sys)
    )
}

pub fn suite_steps(s: &SuiteRecord) -> String {
    let rows: Vec<Vec<String>> = s
        .steps
        .iter()
        .map(|st| {
            let status = format!("{:?}", st.status).to_lowercase();
            let class = if status == "complete" { "ok" } else { "bad" };
            vec![
                escape(&st.id),
                format!("<span class=\"{class}\">{status}</span>"),
                escape(st.message.as_deref().unwrap_or("")),
            ]
        })
        .collect();
    format!(
        "<h3>Suite steps</h3>{}",
        table(&["step", "status", "note"], &rows)
    )
}

/// The per-second IOPS of a result as chart points (partial seconds left out).
fn iops_points(r: &TestResult) -> Vec<(f64, f64)> {
    r.per_second
        .iter()
        .filter(|p| p.covered_s.is_none())
        .map(|p| (p.t as f64, p.iops))
        .collect()
}

fn op_name(r: &TestResult) -> String {
    match r.analysis["spare_pct"].as_f64() {
        Some(p) if p > 0.0 => format!("{p}% spare area"),
        _ => "default spare area".into(),
    }
}

pub fn consistency(results: &[TestResult]) -> String {
    let runs = of(results, "consistency");
    if runs.is_empty() {
        return String::new();
    }
    let mut s = String::from("<h2 id=\"consistency\">Performance consistency</h2><p class=\"note\">4 KiB random writes at QD32 over the whole tested span after a sequential fill; IOPS in every second. The drop shows where the spare area ran out; the steady state depends on garbage collection and spare area.</p>");
    let duration = runs
        .iter()
        .map(|r| r.per_second.len() as f64)
        .fold(0.0, f64::max);
    let from = runs
        .iter()
        .filter_map(|r| num(&r.analysis["steady_from_s"]))
        .fold(0.0, f64::max);
    let series = |r: &TestResult, lo: f64| {
        Series::dots(
            &op_name(r),
            iops_points(r).into_iter().filter(move |p| p.0 >= lo),
        )
    };
    let chart = |title: &str, lo: f64, y: Axis| {
        let mut c = XYChart::new(
            title,
            Axis::linear("Time (s)").range(lo, duration.max(lo + 1.0)),
            y,
        );
        for r in &runs {
            c.push(series(r, lo));
        }
        figure(&c.to_svg())
    };
    // The linear chart is topped at 40K or 50K as the reviews did, higher only if needed.
    let p99 = runs
        .iter()
        .filter_map(|r| num(&r.analysis["steady_state"]["p99"]))
        .fold(0.0, f64::max);
    let top = [40_000.0, 50_000.0]
        .into_iter()
        .find(|&t| p99 <= t)
        .unwrap_or((p99 * 1.2 / 10_000.0).ceil() * 10_000.0);
    s += "<div class=\"charts\">";
    s += &chart(
        "4 KiB random write, QD32: the whole run",
        0.0,
        Axis::log10("IOPS"),
    );
    s += &chart(
        &format!("Steady state from {from:.0} s (log scale)"),
        from,
        Axis::log10("IOPS"),
    );
    s += &chart(
        &format!("Steady state from {from:.0} s (linear scale)"),
        from,
        Axis::linear("IOPS")
            .range(0.0, top)
            .format(NumberFormat::Si),
    );
    s += "</div>";
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            let ss = &r.analysis["steady_state"];
            let g = |k: &str| num(&ss[k]).map_or("-".into(), f0);
            vec![
                format!("{}{}", escape(&op_name(r)), incomplete(r)),
                g("mean"),
                g("median"),
                g("min"),
                g("stddev"),
                g("p1"),
                g("p99"),
                r.analysis["drop_s"]
                    .as_u64()
                    .map_or("none".into(), |t| format!("{t} s")),
                r.write_amplification
                    .and_then(|w| w.steady_state)
                    .map_or("-".into(), |w| format!("{w:.2}")),
            ]
        })
        .collect();
    s + &table(
        &[
            "spare area",
            "mean IOPS",
            "median",
            "min",
            "std dev",
            "p1",
            "p99",
            "drop at",
            "WA (steady)",
        ],
        &rows,
    )
}

const CORNERS: [&str; 5] = [
    "random-read",
    "random-write",
    "random-write-qd32",
    "seq-read",
    "seq-write",
];

pub fn corners(results: &[TestResult]) -> String {
    let rows: Vec<&TestResult> = results
        .iter()
        .filter(|r| CORNERS.contains(&r.test.as_str()))
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut bars = BarChart::new("Four corners: average throughput", "MB/s");
    let mut table_rows = Vec::new();
    for r in &rows {
        bars.push_row(&r.label, &[r.summary.mbps]);
        let lat = r
            .summary
            .write
            .as_ref()
            .or(r.summary.read.as_ref())
            .map(|d| &d.latency_us);
        table_rows.push(vec![
            format!("{}{}", escape(&r.label), incomplete(r)),
            f1(r.summary.mbps),
            f0(r.summary.iops),
            lat.map_or("-".into(), |l| f1(l.mean)),
            lat.map_or("-".into(), |l| f1(l.p99)),
        ]);
    }
    format!(
        "<h2 id=\"corners\">Four corners</h2>{}{}",
        figure(&bars.to_svg()),
        table(
            &[
                "test",
                "MB/s",
                "IOPS",
                "mean latency (us)",
                "p99 latency (us)"
            ],
            &table_rows
        )
    )
}

pub fn seq_incompressible(results: &[TestResult]) -> String {
    let runs = of(results, "seq-incompressible");
    if runs.is_empty() {
        return String::new();
    }
    let mut bars = BarChart::new("Incompressible sequential (16 MiB transfers, QD1)", "MB/s");
    for r in &runs {
        bars.push_row(r.variant.as_deref().unwrap_or("?"), &[r.summary.mbps]);
    }
    format!(
        "<h2 id=\"seq-incompressible\">Incompressible sequential</h2>{}",
        figure(&bars.to_svg())
    )
}

pub fn transfer_sweep(results: &[TestResult]) -> String {
    let runs = of(results, "transfer-sweep");
    if runs.is_empty() {
        return String::new();
    }
    let p = &runs[0].parameters;
    let title = format!(
        "Sequential MB/s against transfer size (QD{}, {} region)",
        p["qd"].as_u64().unwrap_or(4),
        p["region_bytes"]
            .as_f64()
            .map_or("?".into(), crate::chart::format_bytes)
    );
    let mut c = XYChart::new(&title, Axis::log2("Transfer size"), Axis::linear("MB/s"));
    let mut rows = Vec::new();
    for r in &runs {
        c.push(Series::line(
            r.variant.as_deref().unwrap_or_default(),
            r.points.iter().map(|p| (p.x, p.summary.mbps)),
        ));
        let a = &r.analysis;
        rows.push(vec![
            format!(
                "{}{}",
                escape(r.variant.as_deref().unwrap_or("")),
                incomplete(r)
            ),
            num(&a["peak_mbps"]).map_or("-".into(), f1),
            a["peak_at_bytes"]
                .as_u64()
                .map_or("-".into(), |b| crate::chart::format_bytes(b as f64)),
            a["reaches_90pct_at_bytes"]
                .as_u64()
                .map_or("-".into(), |b| crate::chart::format_bytes(b as f64)),
        ]);
    }
    format!(
        "<h2 id=\"transfer-sweep\">Performance vs transfer size</h2>{}{}",
        figure(&c.to_svg()),
        table(
            &["direction", "peak MB/s", "peak at", "90% of peak from"],
            &rows
        )
    )
}

pub fn steady_state(results: &[TestResult]) -> String {
    let runs = of(results, "steady-state");
    let Some(r) = runs.first() else {
        return String::new();
    };
    let a = &r.analysis;
    let c = XYChart::new(
        "4 KiB random write: IOPS per round",
        Axis::linear("Round"),
        Axis::linear("IOPS").format(NumberFormat::Si),
    )
    .series(Series::line(
        "round IOPS",
        r.points.iter().map(|p| (p.x, p.summary.iops)),
    ));
    let verdict = match (a["reached"].as_bool(), a["round"].as_u64()) {
        (Some(true), Some(round)) => format!(
            "<p class=\"ok\">Steady state reached at round {round}: {:.0} IOPS (SNIA PTS rule: 5-round window, excursion within 20%, slope within 10%).</p>",
            num(&a["steady_iops"]).unwrap_or(0.0)
        ),
        _ => format!(
            "<p class=\"bad\">Steady state not reached in {} rounds; last window {:.0} IOPS.</p>",
            r.points.len(),
            num(&a["steady_iops"]).unwrap_or(0.0)
        ),
    };
    format!(
        "<h2 id=\"steady-state\">Steady-state random write</h2>{verdict}{}",
        figure(&c.to_svg())
    )
}

pub fn trim(results: &[TestResult]) -> String {
    let runs = of(results, "trim");
    let Some(r) = runs.first() else {
        return String::new();
    };
    let a = &r.analysis;
    let passes = [
        ("clean", "Clean"),
        ("dirty", "Dirty (tortured)"),
        ("after_trim", "After TRIM"),
    ];
    let mut c = XYChart::new(
        "128 KiB sequential write across the LBA range",
        Axis::linear("LBA position (%)").range(0.0, 100.0),
        Axis::linear("MB/s"),
    );
    let mut rows = Vec::new();
    for (key, name) in passes {
        let pass = &a[key];
        let curve: Vec<(f64, f64)> = pass["curve"]
            .as_array()
            .map(|pts| {
                pts.iter()
                    .filter_map(|p| Some((p[0].as_f64()?, p[1].as_f64()?)))
                    .collect()
            })
            .unwrap_or_default();
        c.push(Series::line(name, curve));
        rows.push(vec![
            name.to_string(),
            num(&pass["first_60s_mbps"]).map_or("-".into(), f1),
            num(&pass["mbps"]).map_or("-".into(), f1),
            num(&pass["min_mbps"]).map_or("-".into(), f1),
        ]);
    }
    let functional = a["functional"].as_bool().unwrap_or(false);
    let trimmed = &a["trimmed_reads"];
    let trimmed = match trimmed["verdict"].as_str() {
        Some(v) => format!(
            "<p class=\"{}\">Trimmed blocks read back: {}</p>",
            if trimmed["violation"].as_bool() == Some(true) {
                "bad"
            } else {
                "ok"
            },
            escape(v)
        ),
        None => String::new(),
    };
    format!(
        "<h2 id=\"trim\">TRIM validation</h2><p class=\"{}\">{}</p>{trimmed}{}{}",
        if functional { "ok" } else { "bad" },
        escape(a["verdict"].as_str().unwrap_or("no verdict")),
        table(
            &[
                "state",
                "60 s sequential write (MB/s)",
                "whole pass (MB/s)",
                "slowest sample (MB/s)"
            ],
            &rows
        ),
        figure(&c.to_svg())
    )
}

pub fn storage_bench(results: &[TestResult]) -> String {
    let runs: Vec<&TestResult> = results
        .iter()
        .filter(|r| r.test == "storage-bench" || r.test == "replay")
        .collect();
    if runs.is_empty() {
        return String::new();
    }
    let mut rate = BarChart::new("Storage Bench: average data rate", "MB/s");
    let mut service = BarChart::new("Storage Bench: average service time", "microseconds");
    let mut rows = Vec::new();
    for r in &runs {
        let m = &r.analysis["metrics"];
        let name = r.analysis["trace"].as_str().unwrap_or("trace").to_string();
        rate.push_row(&name, &[num(&m["data_rate_mbps"]).unwrap_or(f64::NAN)]);
        service.push_row(&name, &[num(&m["avg_service_time_us"]).unwrap_or(f64::NAN)]);
        let g = |k: &str| num(&m[k]).map_or("-".into(), f1);
        rows.push(vec![
            format!("{}{}", escape(&name), incomplete(r)),
            g("data_rate_mbps"),
            g("read_rate_mbps"),
            g("write_rate_mbps"),
            g("busy_time_s"),
            g("read_busy_time_s"),
            g("write_busy_time_s"),
            g("avg_service_time_us"),
            num(&r.analysis["duration_ratio"]).map_or("-".into(), |d| format!("{d:.3}")),
        ]);
    }
    format!(
        "<h2 id=\"storage-bench\">Storage Bench</h2><p class=\"note\">Data rate is bytes moved over disk busy time (idle excluded), as the reviews defined it; service time is issue to completion.</p><div class=\"charts\">{}{}</div>{}",
        figure(&rate.to_svg()),
        figure(&service.to_svg()),
        table(
            &["trace", "MB/s", "read MB/s", "write MB/s", "busy (s)", "read busy (s)", "write busy (s)", "service time (us)", "duration / schedule"],
            &rows
        )
    )
}

pub fn custom(results: &[TestResult]) -> String {
    let runs = of(results, "custom");
    if runs.is_empty() {
        return String::new();
    }
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            vec![
                format!("{}{}", escape(&r.label), incomplete(r)),
                f0(r.summary.iops),
                f1(r.summary.mbps),
            ]
        })
        .collect();
    let mut s = format!(
        "<h2 id=\"custom\">Custom workloads</h2>{}",
        table(&["workload", "IOPS", "MB/s"], &rows)
    );
    for r in runs.iter().filter(|r| r.per_second.len() > 1) {
        let c = XYChart::new(
            &r.label,
            Axis::linear("Time (s)"),
            Axis::linear("IOPS").format(NumberFormat::Si),
        )
        .series(Series::line("IOPS", iops_points(r)));
        s += &figure(&c.to_svg());
    }
    s
}

/// A real drive's own counters over each measured phase: its count of host writes against
/// ssdlab's, NAND writes and write amplification where it reports them, temperature.
pub fn drive_counters(results: &[TestResult]) -> String {
    let health =
        |v: &serde_json::Value| serde_json::from_value::<engine::drive::Health>(v.clone()).ok();
    let rows: Vec<Vec<String>> = results
        .iter()
        .filter_map(|r| {
            let c = r.device_counters.as_ref()?;
            let (start, end) = (health(&c.start)?, health(&c.end)?);
            let bytes =
                |b: Option<u64>| b.map_or("-".into(), |b| format!("{:.1} MB", b as f64 / 1e6));
            let temp = |h: &engine::drive::Health| {
                h.temperature_c.map_or("-".into(), |t| format!("{t} °C"))
            };
            let hw = r.host_writes;
            Some(vec![
                escape(&r.label),
                bytes(hw.map(|h| h.drive_bytes)),
                bytes(hw.map(|h| h.ssdlab_bytes)),
                match hw {
                    Some(h) if h.agrees => "yes".into(),
                    Some(_) => "<span class=\"bad\">no</span>".into(),
                    None => "-".into(),
                },
                bytes(engine::drive::Health::delta(&start, &end).nand_bytes_written),
                r.write_amplification
                    .map_or("-".into(), |w| format!("{:.2}", w.cumulative)),
                format!("{} → {}", temp(&start), temp(&end)),
            ])
        })
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "<h2 id=\"drive-counters\">The drive's own counters</h2><p>Over each measured phase, from \
         the drive's SMART / Health log: what it counted the host writing against what ssdlab \
         wrote (they agree to within the counter's unit), NAND writes and write amplification \
         where the drive reports them, and its temperature before and after.</p>{}",
        table(
            &[
                "test",
                "drive counted",
                "ssdlab wrote",
                "agree",
                "NAND written",
                "WA",
                "temperature"
            ],
            &rows
        )
    );
    for w in results.iter().flat_map(|r| &r.warnings) {
        let _ = write!(s, "<p class=\"bad\">{}</p>", escape(w));
    }
    s
}

pub fn parameters(results: &[TestResult]) -> String {
    let mut s = String::from("<h2 id=\"parameters\">Parameters</h2><p class=\"note\">Every parameter of every measurement, and every deviation from the methodology.</p>");
    for r in results {
        let mut inner = String::new();
        for d in &r.deviations {
            let _ = write!(inner, "<p class=\"bad\">deviation: {}</p>", escape(d));
        }
        for p in &r.preconditioning {
            let _ = write!(
                inner,
                "<p>{}: {}{}</p>",
                escape(&p.name),
                escape(&p.description),
                p.method
                    .as_deref()
                    .map_or(String::new(), |m| format!(" ({})", escape(m)))
            );
        }
        let params = serde_json::to_string_pretty(&r.parameters).unwrap_or_default();
        let _ = write!(
            s,
            "<details><summary>{}{} <span class=\"note\">{}</span></summary>{inner}<pre>{}</pre></details>",
            escape(&r.label),
            incomplete(r),
            escape(&r.started_at),
            escape(&params)
        );
    }
    s
}

/// Every verified result: what was checked, what was found, the first bad LBAs.
pub fn verify(results: &[TestResult]) -> String {
    let verified: Vec<(&TestResult, &engine::verify::VerifyReport)> = results
        .iter()
        .filter_map(|r| r.verify.as_ref().map(|v| (r, v)))
        .collect();
    if verified.is_empty() {
        return String::new();
    }
    let mut s = String::from("<h2 id=\"verify\">Data verification</h2>");
    for (r, v) in verified {
        let _ = write!(
            s,
            "<h3>{}{}</h3><p class=\"{}\">{}</p>",
            escape(&r.label),
            incomplete(r),
            if v.ok() { "ok" } else { "bad" },
            escape(&v.headline())
        );
        if !v.first.is_empty() {
            s += "<ul>";
            for m in &v.first {
                let _ = write!(s, "<li>{}</li>", escape(&m.to_string()));
            }
            s += "</ul>";
        }
    }
    s
}
