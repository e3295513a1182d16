//! The SNIA PTS tests from the command line: a test runs by name with its variant and scale,
//! its result loads with its window's figures and header, the report draws its tables, and
//! `suite --methodology pts-c --quick` runs every PTS test built, a result file each.

use crate::common::*;

#[test]
fn a_pts_test_runs_by_name_and_its_report_has_the_specs_tables() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("lat");
    let o = ssdlab()
        .args([
            "run",
            "pts-latency",
            "--target",
            "sim:default,capacity=2GiB",
        ])
        .args([
            "--pts",
            "client",
            "--pts-scale",
            "0.02",
            "--no-store",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let results = suite::results_dir::read_results(&out).expect("the result loads");
    let [r] = &results[..] else {
        panic!("one result: {results:?}")
    };
    let a = r.pts().expect("PTS figures");
    assert_eq!(a.variant, suite::pts::PtsVariant::Client);
    assert_eq!(a.sequences[0].cells.len(), 9);
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    for shown in [
        "SNIA PTS (pts-latency)",
        "PTS-C",
        "RND 4KiB 0/100",
        "five nines (us)",
        "Steady-state convergence",
        // The spec's steady-state plot: the window, its mean, the bounds, the slope line.
        "window mean (rounds",
        "90-110% of the mean",
        "80-120% of the mean",
        "least-squares slope",
    ] {
        assert!(report.contains(shown), "no {shown} in the report");
    }
    // The terminal gives the test's answer over the window and whether the rule held, and
    // says the row's figures are only the last round's.
    let s = &a.sequences[0];
    let printed = text(&o);
    for said in [
        format!(
            "RND 4KiB 0/100 mean response time {:.1} us over the window; {}",
            s.tracking_cell().latency.mean_us,
            s.verdict()
        ),
        "the row above is the last round of RND 4KiB 0/100, not the test's figure".into(),
    ] {
        assert!(printed.contains(&said), "no {said:?} in {printed}");
    }

    // The PTS flags belong to the PTS tests.
    let o = ssdlab()
        .args([
            "run",
            "consistency",
            "--target",
            "sim:default",
            "--pts",
            "client",
        ])
        .args(["--no-store", "--out"])
        .arg(dir.path().join("refused"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        text(&o).contains("use a PTS test (wsat, pts-iops"),
        "{}",
        text(&o)
    );
}

#[test]
fn the_pts_methodology_runs_every_pts_test() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("suite");
    let o = ssdlab()
        .args(["suite", "--methodology", "pts-c", "--quick"])
        .args([
            "--target",
            "sim:default,capacity=2GiB",
            "--no-store",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let results = suite::results_dir::read_results_with_paths(&out).expect("results load");
    for test in [
        "pts-iops",
        "pts-throughput",
        "pts-latency",
        "wsat",
        "pts-hir",
        "pts-xsr",
        "pts-cbw",
        "pts-dirth",
    ] {
        let file = out.join(format!("{test}.json"));
        let (_, r) = results
            .iter()
            .find(|(path, _)| *path == file)
            .unwrap_or_else(|| panic!("no {}", file.display()));
        assert!(r.complete, "{test}");
        assert!(
            r.deviations.iter().any(|d| d.contains("--pts-scale 0.05")),
            "{test}: {:?}",
            r.deviations
        );
    }
    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    for shown in [
        "SNIA PTS (pts-dirth)",
        "threads by queue depth",
        "Demand intensity",
        "demand variation, IOPS against queue depth",
        "response-time histograms",
        "SNIA PTS recovery (pts-hir)",
        "MB/s against time",
    ] {
        assert!(report.contains(shown), "no {shown} in the report");
    }
}

/// `suite --pts-scale` scales every PTS step, said in each result and kept in suite.json for
/// `--resume`; a methodology without PTS steps refuses it, naming the ones that have them.
#[test]
fn the_suite_takes_a_pts_scale() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("suite");
    let o = ssdlab()
        // With --quick, the scale given rather than the quick one (as the README says).
        .args([
            "suite",
            "--methodology",
            "pts-e",
            "--quick",
            "--pts-scale",
            "0.02",
        ])
        .args(["--only", "pts-throughput", "--only", "pts-latency"])
        .args(["--target", "sim:default,capacity=2GiB", "--no-store"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let results = suite::results_dir::read_results(&out).expect("results load");
    assert_eq!(results.len(), 2);
    for r in &results {
        assert!(
            r.deviations.iter().any(|d| d.contains("--pts-scale 0.02")),
            "{}: {:?}",
            r.test.name(),
            r.deviations
        );
    }
    let rec = suite::runner::read_suite(&out).unwrap();
    assert_eq!(rec.pts_scale, Some(0.02));

    let o = ssdlab()
        .args(["suite", "--pts-scale", "0.1", "--no-store", "--out"])
        .arg(dir.path().join("refused"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        text(&o).contains("the review-2013 methodology has none") && text(&o).contains("pts-e"),
        "{}",
        text(&o)
    );
    let o = ssdlab()
        .args([
            "suite",
            "--methodology",
            "pts-c",
            "--pts-scale",
            "2",
            "--no-store",
        ])
        .arg("--out")
        .arg(dir.path().join("too-big"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(text(&o).contains("at most 1"), "{}", text(&o));
}
