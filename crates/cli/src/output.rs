//! Writing results (JSON per test, per-second CSV) and the console summary.

use engine::units;

use suite::result::TestResult;
use suite::Analysis;

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
