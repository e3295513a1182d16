//! Writing results (JSON per test, per-second CSV) and the console summary.

use std::path::{Path, PathBuf};

use anyhow::Context;

use suite::result::TestResult;

pub fn default_dir(test: &str) -> PathBuf {
    let stamp = suite::result::utc_now().replace([':', '-'], "");
    PathBuf::from("results").join(format!("{test}-{}", stamp.trim_end_matches('Z')))
}

/// Why a set of results is not complete: the first IO failure, if any.
pub fn failure(results: &[TestResult]) -> Option<&str> {
    results.iter().find_map(|r| match &r.stopped {
        Some(engine::driver::Stopped::Failed(why)) => Some(why.as_str()),
        _ => None,
    })
}

/// When verification found corruption: what to tell the user (how many bad units, and the
/// first bad LBAs with what was expected and what was found).
pub fn corruption(results: &[TestResult]) -> Option<String> {
    let reports: Vec<_> = results.iter().filter_map(|r| r.verify.as_ref()).collect();
    let bad: u64 = reports.iter().map(|v| v.mismatches).sum();
    if bad == 0 {
        return None;
    }
    let mut first: Vec<&engine::verify::Mismatch> = reports.iter().flat_map(|v| &v.first).collect();
    first.sort_by_key(|m| m.lba);
    let mut text =
        format!("VERIFY FAILED: {bad} unit(s) did not read back as written; the first bad LBAs:");
    for m in first.iter().take(10) {
        text += &format!("\n  {m}");
    }
    if bad > 10 {
        text += "\n  ... (every result's \"verify\" lists the first 32)";
    }
    Some(text)
}

pub fn write(dir: &Path, results: &[TestResult], json: Option<&Path>) -> anyhow::Result<()> {
    for r in results {
        suite::results_dir::write_result(dir, r)?;
    }
    if let Some(path) = json {
        let text = match results {
            [one] => serde_json::to_string_pretty(one)?,
            many => serde_json::to_string_pretty(many)?,
        };
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

/// (Re)write `DIR/report.html` from the results in DIR; returns its path.
pub fn write_report(dir: &Path) -> anyhow::Result<PathBuf> {
    let results = suite::results_dir::read_results(dir)?;
    anyhow::ensure!(
        !results.is_empty(),
        "{} holds no ssdlab results",
        dir.display()
    );
    let record = suite::runner::read_suite(dir).ok();
    // In the suite's order when there is one.
    let ordered: Vec<TestResult> = match &record {
        Some(rec) => {
            let mut v: Vec<TestResult> = rec
                .steps
                .iter()
                .flat_map(|s| &s.results)
                .filter_map(|stem| results.iter().find(|r| &r.file_stem() == stem).cloned())
                .collect();
            let rest: Vec<TestResult> = results
                .iter()
                .filter(|r| !v.iter().any(|o| o.file_stem() == r.file_stem()))
                .cloned()
                .collect();
            v.extend(rest);
            v
        }
        None => results,
    };
    let html = bench::report::render(&ordered, record.as_ref());
    let path = dir.join("report.html");
    suite::results_dir::write_atomic(&path, html.as_bytes())?;
    Ok(path)
}

pub fn print_summary(results: &[TestResult]) {
    println!(
        "{:<58} {:>10} {:>9} {:>10} {:>10}",
        "test", "IOPS", "MB/s", "mean us", "p99 us"
    );
    for r in results {
        let s = &r.summary;
        let lat = s.write.as_ref().or(s.read.as_ref()).map(|d| &d.latency_us);
        println!(
            "{:<58} {:>10.0} {:>9.1} {:>10.1} {:>10.1}{}",
            r.label,
            s.iops,
            s.mbps,
            lat.map_or(0.0, |l| l.mean),
            lat.map_or(0.0, |l| l.p99),
            if r.complete { "" } else { "  (incomplete)" }
        );
        if let Some(engine::driver::Stopped::Failed(why)) = &r.stopped {
            println!("    FAILED: {why}");
        }
        if let Some(p) = &r.measured_phase {
            println!("    the figures above are the {p} phase's: the test itself did not run");
        }
        if r.summary.failed_ios > 0 {
            println!(
                "    {} IO(s) failed (not counted in the figures)",
                r.summary.failed_ios
            );
        }
        for d in &r.deviations {
            println!("    deviation: {d}");
        }
        for w in &r.warnings {
            println!("    warning: {w}");
        }
        if let Some(h) = &r.host_writes {
            println!(
                "    the drive counted {} written by the host, ssdlab wrote {}{}",
                engine::size::format_size(h.drive_bytes),
                engine::size::format_size(h.ssdlab_bytes),
                if h.agrees { " (they agree)" } else { "" }
            );
        }
        if let Some(ss) = r.analysis.get("steady_state").filter(|v| !v.is_null()) {
            println!(
                "    steady state from {}s: mean {:.0} IOPS, median {:.0}, min {:.0}, stddev {:.0}, p1 {:.0}, p99 {:.0}; drop at {}",
                r.analysis["steady_from_s"],
                ss["mean"].as_f64().unwrap_or(0.0),
                ss["median"].as_f64().unwrap_or(0.0),
                ss["min"].as_f64().unwrap_or(0.0),
                ss["stddev"].as_f64().unwrap_or(0.0),
                ss["p1"].as_f64().unwrap_or(0.0),
                ss["p99"].as_f64().unwrap_or(0.0),
                r.analysis["drop_s"].as_u64().map_or("none".into(), |t| format!("{t} s")),
            );
        }
        let a = &r.analysis;
        if let Some(v) = a.get("verdict").and_then(|v| v.as_str()) {
            println!("    {v}");
        }
        if let Some(reached) = a.get("reached").and_then(|v| v.as_bool()) {
            match a["round"].as_u64() {
                Some(round) if reached => println!(
                    "    steady state reached at round {round}: {:.0} IOPS",
                    a["steady_iops"].as_f64().unwrap_or(0.0)
                ),
                _ => println!(
                    "    steady state NOT reached; last window {:.0} IOPS",
                    a["steady_iops"].as_f64().unwrap_or(0.0)
                ),
            }
        }
        if let Some(peak) = a.get("peak_mbps").and_then(|v| v.as_f64()) {
            println!(
                "    peak {peak:.1} MB/s at {} bytes; 90% of peak from {} bytes",
                a["peak_at_bytes"], a["reaches_90pct_at_bytes"]
            );
        }
        if let Some(v) = &r.verify {
            println!("    {}", v.headline());
            for m in v.first.iter().take(5) {
                println!("      {m}");
            }
        }
        if let Some(t) = a.get("trimmed_reads").and_then(|t| t.get("verdict")) {
            println!("    trimmed reads: {}", t.as_str().unwrap_or_default());
        }
        if let Some(wa) = &r.write_amplification {
            println!(
                "    write amplification: {:.2} over the run, {} over its second half",
                wa.cumulative,
                wa.steady_state.map_or("-".into(), |w| format!("{w:.2}"))
            );
        }
    }
}
