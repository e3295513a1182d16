//! Writing results (JSON per test, per-second CSV) and the console summary.

use std::path::{Path, PathBuf};

use engine::units;

use suite::result::TestResult;
use suite::Analysis;

/// The results directory of a run given no --out, created now: `results/TEST-STAMP`, to
/// the second, with a suffix when another run of that second has the name.
pub fn new_dir(test: &str) -> anyhow::Result<PathBuf> {
    let stamp = suite::result::utc_now().replace([':', '-'], "");
    let base = PathBuf::from("results").join(format!("{test}-{}", stamp.trim_end_matches('Z')));
    Ok(suite::results_dir::create_new(&base)?)
}

/// The results directory of a new run: `--out` when given (refused when it holds another
/// run's results), else a new one ([`new_dir`]).
pub fn claim_dir(out: Option<&Path>, test: &str) -> anyhow::Result<PathBuf> {
    match out {
        Some(dir) => {
            suite::results_dir::check_unused(dir)?;
            Ok(dir.to_path_buf())
        }
        None => new_dir(test),
    }
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

/// Write each result's files into the results directory `dir` (`fresh`: made for this run),
/// then `--json`. A directory that cannot be written is an error, after saying what it kept;
/// a `--json` that cannot be written is only lost, its failure returned to be said.
pub fn write(
    dir: &Path,
    fresh: bool,
    results: &[TestResult],
    json: Option<&Path>,
) -> anyhow::Result<Option<String>> {
    let written =
        (results.iter()).try_for_each(|r| suite::results_dir::write_result(dir, r).map(|_| ()));
    if let Err(e) = written {
        say_what_was_kept(dir, fresh);
        return Err(e.into());
    }
    Ok(json.and_then(|path| write_json(path, results).err().map(|e| format!("{e:#}"))))
}

/// `--json`: the result, or an array of a group's.
fn write_json(path: &Path, results: &[TestResult]) -> anyhow::Result<()> {
    let text = match results {
        [one] => serde_json::to_string_pretty(one)?,
        many => serde_json::to_string_pretty(many)?,
    };
    suite::results_dir::write_atomic(path, text.as_bytes())?;
    Ok(())
}

/// After the results directory could not be written: where what was written before lives,
/// or, when nothing was, that nothing is kept (a new directory of nothing removed).
fn say_what_was_kept(dir: &Path, fresh: bool) {
    let kept = suite::results_dir::read_results(dir).map_or(0, |r| r.len());
    if kept > 0 {
        eprintln!(
            "results: {} (the {kept} result(s) written before the failure)",
            dir.display()
        );
        return;
    }
    if fresh {
        suite::results_dir::abandon_run(dir);
    }
    eprintln!("no result could be written: nothing is kept");
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

/// A result's headline figure in a few words: what the reviews charted for its test.
pub fn headline(r: &TestResult) -> String {
    match &r.analysis {
        Analysis::Consistency(a) => {
            if let Some(ss) = &a.steady_state {
                return match a.reached {
                    true => format!("steady-state mean {:.0} IOPS", ss.mean),
                    false => format!("mean {:.0} IOPS, {}", ss.mean, a.window_name()),
                };
            }
        }
        Analysis::Saturation(a) => {
            if let Some(last) = a.last() {
                return format!("{:.0} IOPS after {:.1} GB written", last.iops, last.tgbw);
            }
        }
        Analysis::Pts(a) => return a.headline(),
        _ => {}
    }
    r.console().headline
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
    if let Some(note) = &p.note {
        text += &format!("; {note}");
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
    let cell = |v: Option<f64>, text: fn(f64) -> String| v.map_or(String::new(), text);
    let row = |t: &mut Table, r: &suite::console::Row, name: String| {
        t.row(vec![
            cell(r.iops, |v| format!("{v:.0}")),
            cell(r.mbps, units::mbps),
            cell(r.mean_us, |v| format!("{v:.1}")),
            cell(r.p99_us, |v| format!("{v:.1}")),
            cell(r.max_us, |v| format!("{v:.1}")),
            name,
        ])
    };
    for r in results {
        let console = r.console();
        let incomplete = if r.complete { "" } else { "  (incomplete)" };
        row(&mut t, &console.figures, format!("{}{incomplete}", r.label));
        for part in &console.parts {
            row(&mut t, part, format!("  {}", part.name));
        }
        let mut note = |text: String| t.note(format!("    {text}"));
        for text in console.notes {
            note(text);
        }
        if let Some(engine::driver::Stopped::Failed(why)) = &r.stopped {
            note(format!("FAILED: {why}"));
        }
        let rows = std::iter::once(&console.figures).chain(&console.parts);
        if rows
            .filter_map(|r| Some((r.mean_us?, r.p99_us?)))
            .any(|(mean, p99)| mean > p99)
        {
            // Not a mistake: a drive as steady as a simulator takes the same time for 99% of
            // IOs, and a handful of slow ones lift the mean, never the p99.
            note(
                "mean above p99: fewer than 1% of the IOs were far slower than the rest (max us)"
                    .into(),
            );
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
                        "{}: mean {:.0} IOPS, median {:.0}, min {:.0}, stddev {:.0}, p1 {:.0}, p99 {:.0}; {}",
                        a.window_name(),
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
            Analysis::SteadyState(a) => note(a.verdict()),
            Analysis::Pts(a) => crate::pts_summary::lines(a).into_iter().for_each(&mut note),
            Analysis::Recovery(a) => crate::pts_summary::recovery_lines(a)
                .into_iter()
                .for_each(&mut note),
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
