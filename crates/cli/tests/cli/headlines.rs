//! Every test `ssdlab tests` lists prints its own answer on the terminal, figures read from
//! its stored result: a transfer sweep a row per size, a fill its cache and the speed after it,
//! the Storage Bench its data rate beside no wall-time MB/s, a mixed run each direction's
//! latencies in a row of its own.

use std::path::Path;

use engine::units::{format_size, mbps, watts};
use suite::methodology::{quick, Kind, TestId};
use suite::result::{Parameters, TestResult};

use crate::common::*;

/// A small drive: the whole list runs in a minute or so.
const TARGET: &str = "sim:default,capacity=512MiB,op=25%";

/// How each test runs here: short, and what it needs to show its answer.
fn args(test: TestId) -> Vec<&'static str> {
    let mut args = vec!["--target", TARGET, "--duration", "2"];
    match test.kind() {
        // PTS-C's queues (T2Q16 at most): PTS-E's T4Q32 of 1 MiB IOs on a drive this small
        // keeps rounds this short busy draining, for minutes, with the same lines to print.
        Kind::Pts | Kind::Recovery | Kind::Saturation => {
            args.extend(["--pts", "client", "--pts-scale", "0.01"])
        }
        // A cache to find, and no time bound (the fill is bounded by the drive's bytes).
        Kind::Fill => {
            args = vec![
                "--target",
                "sim:default,capacity=512MiB,op=25%,slc_cache=64MiB",
            ]
        }
        Kind::Replay => args.extend(["--trace-scale", "0.01"]),
        _ => {}
    }
    args
}

/// Its output and results, once it has succeeded.
fn run_test(name: &str, extra: &[&str], dir: &Path) -> (String, Vec<TestResult>) {
    let out = dir.join(name);
    let o = ssdlab()
        .args(["run", name, "--no-store", "--out"])
        .arg(&out)
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{name}: {}", text(&o));
    let results = suite::results_dir::read_results(&out).unwrap();
    assert!(!results.is_empty(), "{name}: no results");
    (String::from_utf8_lossy(&o.stdout).into_owned(), results)
}

/// The output from the row naming `label` on.
fn under<'a>(stdout: &'a str, label: &str) -> &'a str {
    let at = stdout
        .lines()
        .find(|l| l.trim_end().ends_with(label))
        .unwrap_or_else(|| panic!("no row of {label}:\n{stdout}"));
    &stdout[stdout.find(at).unwrap()..]
}

/// The first row under `label` named `name` (the result's own when the same) holds `figures`
/// in its columns, and nothing else when `only`.
fn row(stdout: &str, label: &str, name: &str, figures: &[String], only: bool) {
    let text = under(stdout, label);
    // The name column is the whole of what follows two spaces (or the whole line).
    let named = |l: &str| {
        let l = l.trim_end();
        l == name || l.ends_with(&format!("  {name}"))
    };
    let line = text
        .lines()
        .find(|l| named(l))
        .unwrap_or_else(|| panic!("no row {name} under {label}:\n{stdout}"));
    let cells: Vec<&str> = line.trim_end()[..line.trim_end().len() - name.len()]
        .split_whitespace()
        .collect();
    for f in figures {
        assert!(
            cells.contains(&f.as_str()),
            "{name}: {f} not in {line:?}:\n{stdout}"
        );
    }
    if only {
        assert_eq!(cells.len(), figures.len(), "{name}: {line:?}:\n{stdout}");
    }
}

fn says(stdout: &str, what: &str) {
    assert!(stdout.contains(what), "{what:?} not in:\n{stdout}");
}

fn us(v: f64) -> String {
    format!("{v:.1}")
}

/// A workload's row: its IOPS and MB/s, its one direction's latencies, or each direction's in
/// its own row; a duty cycle's speed within its bursts.
fn summary(stdout: &str, r: &TestResult) {
    let s = &r.summary;
    let mut own = vec![format!("{:.0}", s.iops), mbps(s.mbps)];
    match (&s.read, &s.write) {
        (Some(rd), Some(wr)) => {
            for (name, d) in [("reads", rd), ("writes", wr)] {
                let l = &d.latency_us;
                row(
                    stdout,
                    &r.label,
                    name,
                    &[us(l.mean), us(l.p99), us(l.max)],
                    false,
                );
            }
            row(stdout, &r.label, &r.label, &own, true);
        }
        (Some(d), None) | (None, Some(d)) => {
            own.push(us(d.latency_us.mean));
            row(stdout, &r.label, &r.label, &own, false);
        }
        (None, None) => {}
    }
    if let Parameters::Workload(w) = &r.parameters {
        if w.shape.duty_cycle.is_some() {
            let within = mbps(s.bytes as f64 / s.busy_time_s / 1e6);
            let text = under(stdout, &r.label);
            let line = text
                .lines()
                .find(|l| l.contains("within the bursts"))
                .unwrap();
            assert!(line.contains(&format!(" {within} ")), "{within}: {line}");
        }
    }
}

/// What `r`'s test answers, on the terminal.
fn answers(stdout: &str, r: &TestResult) {
    let label = r.label.as_str();
    if quick::is_quick(r.test) {
        let cell = label.rsplit_once(' ').unwrap().0;
        let line = stdout.lines().find(|l| l.starts_with(cell)).unwrap();
        assert!(line.contains(&format!("{:.1}", r.summary.mbps)), "{line}");
        return;
    }
    match r.test.kind() {
        Kind::Summary | Kind::Verify => summary(stdout, r),
        Kind::TransferSweep => {
            let a = r.transfer_sweep().unwrap();
            assert!(r.points.len() > 10, "{label}: {} sizes", r.points.len());
            for p in &r.points {
                row(
                    stdout,
                    label,
                    &format_size(p.x as u64),
                    &[mbps(p.summary.mbps)],
                    false,
                );
            }
            says(
                stdout,
                &format!(
                    "peak {} MB/s at {}",
                    mbps(a.peak_mbps),
                    format_size(a.peak_at_bytes)
                ),
            );
            // The last size's figures are no figures of the whole sweep.
            row(stdout, label, label, &[], true);
        }
        Kind::Fill => {
            let a = r.fill().unwrap();
            let c = a.cache.expect("the drive's cache found");
            let gb = format!("{:.1} GB", c.bytes as f64 / 1e9);
            row(
                stdout,
                label,
                &format!("in the write cache (its first {gb})"),
                &[mbps(c.mbps)],
                true,
            );
            row(
                stdout,
                label,
                "after it (median)",
                &[mbps(a.after_cache_mbps)],
                true,
            );
        }
        Kind::Replay => {
            let m = &r.replay().unwrap().metrics;
            says(
                under(stdout, label),
                &format!("data rate (over busy time) {} MB/s", mbps(m.data_rate_mbps)),
            );
            // No throughput over wall time beside it.
            row(stdout, label, label, &[], true);
            for (name, l) in [
                ("reads", &m.read_latency_us),
                ("writes", &m.write_latency_us),
            ] {
                if let Some(l) = l {
                    row(
                        stdout,
                        label,
                        name,
                        &[us(l.mean), us(l.p99), us(l.max)],
                        true,
                    );
                }
            }
        }
        Kind::Trim => {
            let a = r.trim().unwrap();
            for (name, p) in [
                ("clean", &a.clean),
                ("dirty", &a.dirty),
                ("after TRIM", &a.after_trim),
            ] {
                row(stdout, label, name, &[mbps(p.mbps)], true);
            }
            says(stdout, &a.verdict);
        }
        Kind::IdlePower | Kind::SlumberPower | Kind::LoadPower => {
            let w = r.power_analysis().unwrap().mean_w.unwrap();
            says(under(stdout, label), &format!("power {}", watts(w)));
            if r.summary.ios == 0 {
                row(stdout, label, label, &[], true);
            }
        }
        Kind::Steps => {
            let a = r.steps().unwrap();
            for p in &r.points {
                row(
                    stdout,
                    label,
                    &a.axis.step(p.x),
                    &[mbps(p.summary.mbps)],
                    false,
                );
            }
            if let Some(b) = &a.burst {
                let text = under(stdout, label);
                let line = text.lines().find(|l| l.contains("bursts of")).unwrap();
                assert!(line.contains(&format!(" {} ", mbps(b.mbps))), "{line}");
            }
            // The peak step's figures are no figures of the whole test.
            row(stdout, label, label, &[], true);
        }
        Kind::Wake => {
            let a = r.wake().unwrap();
            let after = format!("after {} s of rest", a.rest_s);
            row(
                stdout,
                label,
                &after,
                &[us(a.wake_mean_us), us(a.wake_max_us)],
                true,
            );
            let awake = [us(a.awake_mean_us), us(a.awake_p99_us)];
            row(stdout, label, "awake, back to back", &awake, true);
        }
        Kind::Consistency => {
            let ss = r.consistency().unwrap().steady_state.as_ref().unwrap();
            says(under(stdout, label), &format!("mean {:.0} IOPS", ss.mean));
        }
        Kind::SteadyState => {
            let a = r.steady_state().unwrap();
            says(under(stdout, label), &format!("{:.0} IOPS", a.steady_iops));
        }
        // The recovery tests' answer: each segment's mean.
        Kind::Recovery => {
            summary(stdout, r);
            let a = r.recovery().unwrap();
            for s in &a.segments {
                let unit = a.figure.unit();
                let mean = format!("{}: {:.0} {unit}", s.label, s.value(a.figure));
                says(under(stdout, label), &mean);
            }
        }
        // The PTS tests print the summary row, with their verdict lines (tests of `pts`).
        Kind::Pts | Kind::Saturation => summary(stdout, r),
    }
}

#[test]
fn every_test_prints_its_own_answer() {
    let dir = tempfile::tempdir().unwrap();
    let listed = run(&["tests"]);
    assert!(listed.status.success(), "{}", text(&listed));
    let names: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect();
    assert!(names.len() > 30, "{names:?}");
    for name in &names {
        let test: TestId = name.parse().unwrap();
        let (stdout, results) = run_test(name, &args(test), dir.path());
        for r in &results {
            answers(&stdout, r);
        }
    }
    // A custom run's answer depends on its flags: a mixed one's each direction, a bursty
    // one's speed within the bursts.
    let custom = [
        ("mixed", vec!["--read-pct", "70"]),
        (
            "bursts",
            vec![
                "--burst",
                "32M",
                "--duty",
                "20",
                "--access",
                "sequential",
                "--bs",
                "128K",
                "--read-pct",
                "0",
            ],
        ),
    ];
    for (what, flags) in custom {
        let mut a = args(TestId::Custom);
        a.extend(flags);
        let (stdout, results) = run_test("custom", &a, &dir.path().join(what));
        answers(&stdout, &results[0]);
    }
}
