//! `ssdlab quick`: CrystalDiskMark's profiles on a simulated drive, a result per workload and
//! direction, and the grid CrystalDiskMark shows.

use crate::common::*;

#[test]
fn the_nvme_profile_runs_every_cell_read_write_and_mixed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("q");
    let o = ssdlab()
        .args([
            "quick",
            "--profile",
            "nvme",
            "--target",
            "sim:default",
            "--no-store",
        ])
        .args(["--read-pct", "70", "--duration", "2", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let grid = String::from_utf8_lossy(&o.stdout);
    for shown in [
        "read MB/s",
        "write IOPS",
        "mix us",
        "SEQ128K Q32T1",
        "RND4K Q32T16",
    ] {
        assert!(grid.contains(shown), "no {shown} in:\n{grid}");
    }
    let results = suite::results_dir::read_results(&out).expect("the results load");
    assert_eq!(results.len(), 12, "4 workloads x read, write, mix");
    let mut stems: Vec<String> = results.iter().map(|r| r.file_stem()).collect();
    stems.sort();
    stems.dedup();
    assert_eq!(stems.len(), 12, "a file each: {stems:?}");
    let q32t16 = results
        .iter()
        .find(|r| r.label == "RND4K Q32T16 mix 70% read")
        .expect("the mixed Q32T16 cell");
    let w = serde_json::to_value(&q32t16.parameters).unwrap();
    assert_eq!(
        (w["qd"].as_u64(), w["threads"].as_u64()),
        (Some(32), Some(16)),
        "{w}"
    );
    assert_eq!(w["read_pct"], 70);
    assert!(results.iter().all(|r| r.complete && r.summary.ios > 0));
    // The region is filled once, before the first read; every result names that fill.
    assert!(
        results.iter().all(|r| r.preconditioning.len() == 1),
        "{:?}",
        results[0].preconditioning
    );
}

#[test]
fn a_profile_runs_its_own_cells() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(&[
        "run",
        "quick",
        "--target",
        "sim:default",
        "--no-store",
        "--qd",
        "4",
        "--out",
        dir.path().join("q").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(text(&o).contains("drop --qd"), "{}", text(&o));
    let o = run(&["quick", "--profile", "fast", "--target", "sim:default"]);
    assert!(
        text(&o).contains("default, nvme, peak or real-world"),
        "{}",
        text(&o)
    );
}

/// `suite --methodology quick` runs the default profile as a suite, and says so in
/// suite.json, so `--resume` carries on the same plan.
#[test]
fn a_suite_of_the_quick_methodology_records_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    let o = ssdlab()
        .args([
            "suite",
            "--methodology",
            "quick",
            "--target",
            "sim:default",
            "--no-store",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let rec = suite::runner::read_suite(&out).unwrap();
    assert_eq!(rec.methodology, suite::methodologies::Methodology::Quick);
    assert!(rec.complete);
    assert_eq!(rec.steps.len(), 1);
    assert_eq!(
        rec.steps[0].results.len(),
        8,
        "4 workloads read and written"
    );
    let o = run(&[
        "suite",
        "--methodology",
        "review-2022",
        "--target",
        "sim:default",
    ]);
    assert!(!o.status.success());
    assert!(text(&o).contains("review-2021"), "{}", text(&o));
}

/// On a target smaller than CrystalDiskMark's 1 GiB test size the profile tests what there
/// is, and says so: a deviation in every result and under the grid (q9).
#[test]
fn a_smaller_target_is_a_smaller_test_size_said() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("q");
    let target = format!("file:{}:64M", dir.path().join("x.img").display());
    let o = ssdlab()
        .args([
            "quick",
            "--profile",
            "peak",
            "--target",
            &target,
            "--no-store",
        ])
        .args(["--duration", "0.2", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let said = "test size 64 MiB instead of 1 GiB: the target is smaller";
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(stdout.matches(said).count(), 1, "{stdout}");
    let results = suite::results_dir::read_results(&out).expect("the results load");
    assert!(!results.is_empty());
    for r in &results {
        assert!(r.deviations.iter().any(|d| d == said), "{:?}", r.deviations);
    }
}
