//! Writing results (JSON per test, per-second CSV) and the console summary.

use std::path::{Path, PathBuf};

use anyhow::Context;
use engine::units;

use suite::result::TestResult;
use suite::Analysis;

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

/// The Storage Bench's metrics of a result (a Storage Bench or trace replay), if it is one.
fn storage_bench_metrics(r: &TestResult) -> Option<&suite::replay::StorageBenchMetrics> {
    r.replay().map(|a| &a.metrics)
}

/// The Storage Bench's data rate as the reviews defined it: bytes over disk busy time.
fn data_rate_text(m: &suite::replay::StorageBenchMetrics) -> String {
    let mut text = format!(
        "data rate (over busy time) {} MB/s",
        units::mbps(m.data_rate_mbps)
    );
    let dirs: Vec<String> = [("read", m.read_rate_mbps), ("write", m.write_rate_mbps)]
        .into_iter()
        .filter_map(|(d, v)| v.map(|v| format!("{d} {}", units::mbps(v))))
        .collect();
    if !dirs.is_empty() {
        text += &format!(" ({})", dirs.join(", "));
    }
    text
}

/// A result's headline figure in a few words: what the reviews charted for its test.
pub fn headline(r: &TestResult) -> String {
    match &r.analysis {
        Analysis::Replay(a) => return data_rate_text(&a.metrics),
        Analysis::Consistency(a) => {
            if let Some(ss) = &a.steady_state {
                return format!("steady-state mean {:.0} IOPS", ss.mean);
            }
        }
        Analysis::TransferSweep(a) => return format!("peak {} MB/s", units::mbps(a.peak_mbps)),
        Analysis::Saturation(a) => {
            if let Some(last) = a.last() {
                return format!("{:.0} IOPS after {:.1} GB written", last.iops, last.tgbw);
            }
        }
        Analysis::Fill(a) => {
            return match a.cache {
                Some(c) => format!(
                    "{:.1} GB cache at {:.0} MB/s, then {:.0} MB/s",
                    c.bytes as f64 / 1e9,
                    c.mbps,
                    a.after_cache_mbps
                ),
                None => format!("no cache: {:.0} MB/s", a.after_cache_mbps),
            }
        }
        Analysis::Pts(a) => return a.headline(),
        Analysis::Power(a) => {
            return match a.mean_w {
                Some(w) => units::watts(w),
                None => "power missing".into(),
            }
        }
        _ => {}
    }
    format!(
        "{:.0} IOPS, {} MB/s",
        r.summary.iops,
        units::mbps(r.summary.mbps)
    )
}

/// A phase's power in a line: mean, min and max, what they are, and per watt for writes.
fn power_text(
    p: &engine::power::PhasePower,
    a: Option<&suite::methodology::power::PowerAnalysis>,
) -> String {
    let mut text = match &p.summary {
        Some(s) => format!(
            "power {} (min {}, max {}), {}",
            units::watts(s.mean_w),
            units::watts(s.min_w),
            units::watts(s.max_w),
            p.basis.sentence()
        ),
        None => "power MISSING (no reading)".to_string(),
    };
    if let Some(a) = a {
        if let (Some(mbps), Some(iops)) = (a.mbps_per_w, a.iops_per_w) {
            text += &format!("; {mbps:.1} MB/s per W, {iops:.0} IOPS per W");
        }
        if let (Some(t), Some(burst), Some(after)) = (a.burst_s, a.burst_w, a.after_burst_w) {
            text += &format!(
                "; {} until the burst ended at {t} s, {} after",
                units::watts(burst),
                units::watts(after)
            );
        } else if let (Some(first), Some(after)) = (a.first_30s_w, a.after_30s_w) {
            text += &format!(
                "; first 30 s {}, after {}",
                units::watts(first),
                units::watts(after)
            );
        }
        if let Some(tail) = a.tail_w {
            text += &format!("; {} in the idle after", units::watts(tail));
        }
    }
    if let Some(m) = &p.missing {
        text += &format!("; missing from {:.1} s: {}", m.from_s, m.reason);
    }
    text
}

/// The results as an aligned table, a row per result with what to know about it under it.
pub fn print_summary(results: &[TestResult]) {
    let quick = !results.is_empty()
        && results
            .iter()
            .all(|r| suite::methodology::quick::is_quick(r.test));
    match quick {
        true => print!("{}", crate::cmd_quick::grid(results)),
        false => print!("{}", summary_table(results)),
    }
}

pub fn summary_table(results: &[TestResult]) -> String {
    use crate::table::{Align::*, Table};
    let mut t = Table::new(&[
        ("IOPS", Right),
        ("MB/s", Right),
        ("mean us", Right),
        ("p99 us", Right),
        ("max us", Right),
        ("test", Left),
    ]);
    for r in results {
        let s = &r.summary;
        let lat = s.write.as_ref().or(s.read.as_ref()).map(|d| &d.latency_us);
        let metrics = storage_bench_metrics(r);
        // A trace replay's figures over wall time would be a second, different "MB/s": its
        // data rate (over busy time) is printed under it instead.
        let (iops, mbps) = match metrics {
            Some(_) => (String::new(), String::new()),
            None => (format!("{:.0}", s.iops), units::mbps(s.mbps)),
        };
        t.row(vec![
            iops,
            mbps,
            lat.map_or(String::new(), |l| format!("{:.1}", l.mean)),
            lat.map_or(String::new(), |l| format!("{:.1}", l.p99)),
            lat.map_or(String::new(), |l| format!("{:.1}", l.max)),
            format!(
                "{}{}",
                r.label,
                if r.complete { "" } else { "  (incomplete)" }
            ),
        ]);
        let mut note = |text: String| t.note(format!("    {text}"));
        if let Some(m) = &metrics {
            note(format!(
                "{}; disk busy {:.1} s; average service time {:.0} us",
                data_rate_text(m),
                m.busy_time_s,
                m.avg_service_time_us
            ));
        }
        if let Some(engine::driver::Stopped::Failed(why)) = &r.stopped {
            note(format!("FAILED: {why}"));
        }
        if let (Some(_), Some(read)) = (&s.write, &s.read) {
            // The latency columns are the writes'; a mixed workload's reads differ.
            let l = &read.latency_us;
            note(format!(
                "latency columns are the writes'; reads: mean {:.1} us, p99 {:.1} us, max {:.1} us",
                l.mean, l.p99, l.max
            ));
        }
        if let Some(l) = lat.filter(|l| l.mean > l.p99) {
            // Not a mistake: a drive as steady as a simulator takes the same time for 99% of
            // IOs, and a handful of slow ones lift the mean, never the p99.
            note(format!(
                "mean above p99: fewer than 1% of the IOs were far slower than the rest (p99.9 {:.1} us, max {:.1} us)",
                l.p999, l.max
            ));
        }
        if let Some(p) = &r.measured_phase {
            note(format!(
                "the figures above are the {p} phase's: the test itself did not run"
            ));
        }
        if r.summary.failed_ios > 0 {
            note(format!(
                "{} IO(s) failed (not counted in the figures)",
                r.summary.failed_ios
            ));
        }
        if let Some(p) = &r.power {
            note(power_text(p, r.power_analysis()));
        }
        for d in &r.deviations {
            note(format!("deviation: {d}"));
        }
        for a in &r.adaptations {
            note(format!("fitted to the target: {a}"));
        }
        for w in &r.warnings {
            note(format!("warning: {w}"));
        }
        if let Some(h) = &r.host_writes {
            note(format!(
                "the drive counted {} written by the host, ssdlab wrote {}{}",
                units::format_size(h.drive_bytes),
                units::format_size(h.ssdlab_bytes),
                if h.agrees { " (they agree)" } else { "" }
            ));
        }
        match &r.analysis {
            Analysis::Consistency(a) => {
                if let Some(ss) = &a.steady_state {
                    note(format!(
                        "steady state from {} s: mean {:.0} IOPS, median {:.0}, min {:.0}, stddev {:.0}, p1 {:.0}, p99 {:.0}; {}",
                        a.steady_from_s,
                        ss.mean,
                        ss.median,
                        ss.min,
                        ss.stddev,
                        ss.p1,
                        ss.p99,
                        a.drop_s
                            .map_or("no drop".into(), |t| format!("drop at {t} s")),
                    ));
                }
            }
            Analysis::Pts(a) => crate::pts_summary::lines(a).into_iter().for_each(&mut note),
            Analysis::Recovery(a) => crate::pts_summary::recovery_lines(a)
                .into_iter()
                .for_each(&mut note),
            Analysis::Trim(a) => {
                note(a.verdict.clone());
                if let Some(t) = &a.trimmed_reads {
                    note(format!("trimmed reads: {}", t.verdict));
                }
            }
            Analysis::SteadyState(a) => match a.round {
                Some(round) if a.reached => note(format!(
                    "steady state reached at round {round}: {:.0} IOPS",
                    a.steady_iops
                )),
                _ => note(format!(
                    "steady state NOT reached; last window {:.0} IOPS",
                    a.steady_iops
                )),
            },
            Analysis::TransferSweep(a) => {
                let mut text = format!(
                    "peak {} MB/s at {}",
                    units::mbps(a.peak_mbps),
                    units::format_size(a.peak_at_bytes)
                );
                if let Some(from) = a.reaches_90pct_at_bytes {
                    text += &format!("; 90% of peak from {}", units::format_size(from));
                }
                note(text);
            }
            Analysis::Wake(a) => note(format!(
                "after {} s of rest: mean {:.1} us, max {:.1} us ({} wake-ups counted); awake: \
                 mean {:.1} us, p99 {:.1} us",
                a.rest_s,
                a.wake_mean_us,
                a.wake_max_us,
                a.wakeups.map_or("no".into(), |n| n.to_string()),
                a.awake_mean_us,
                a.awake_p99_us
            )),
            Analysis::Steps(a) => {
                if let Some(b) = &a.burst {
                    note(format!("bursts: {} MB/s while busy", units::mbps(b.mbps)));
                }
                let steps: Vec<String> = (r.points.iter())
                    .map(|p| format!("{} {}", a.axis.step(p.x), units::mbps(p.summary.mbps)))
                    .collect();
                note(format!("MB/s: {}", steps.join(", ")));
                let over = match a.axis {
                    suite::steps::Axis::QueueDepth => "QD1-QD4",
                    suite::steps::Axis::ReadShare => "every share",
                };
                note(format!(
                    "mean over {over} {} MB/s; the row above is the peak step",
                    units::mbps(a.headline_mbps)
                ));
            }
            _ => {}
        }
        if let Some(v) = &r.verify {
            note(v.headline());
            for m in v.first.iter().take(5) {
                note(format!("  {m}"));
            }
        }
        if let Some(wa) = &r.write_amplification {
            let mut text = format!("write amplification {:.2} over the run", wa.cumulative);
            if let Some(w) = wa.steady_state {
                text += &format!(", {w:.2} over its second half");
            }
            note(text);
        }
    }
    t.render()
}
