//! A run's results from start to the Bench: each run in a directory of its own, never over
//! another's; a run that measured nothing, or could not, stores nothing.

use std::path::Path;

use crate::common::*;

/// `ssdlab run custom` on `sim:default`, out of the Bench, from `cwd`.
fn sim_run(cwd: &Path, args: &[&str]) -> std::process::Command {
    let mut c = ssdlab();
    c.current_dir(cwd)
        .args([
            "run",
            "custom",
            "--target",
            "sim:default",
            "--no-store",
            "-q",
        ])
        .args(args);
    c
}

/// The run ids of the results in `dir`.
fn run_ids(dir: &Path) -> Vec<String> {
    suite_results(dir)
        .iter()
        .map(|r| r["run_id"].as_str().unwrap().to_string())
        .collect()
}

fn suite_results(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect()
}

#[test]
fn runs_started_at_once_each_keep_a_directory_of_their_own() {
    let cwd = tempfile::tempdir().unwrap();
    // Started together, most in one second: default directory names are to the second.
    let runs: Vec<_> = (0..20)
        .map(|_| sim_run(cwd.path(), &["--ios", "200"]).spawn().unwrap())
        .collect();
    for r in runs {
        let o = r.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", text(&o));
    }
    let dirs: Vec<_> = std::fs::read_dir(cwd.path().join("results"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(dirs.len(), 20, "{dirs:?}");
    let mut ids: Vec<String> = dirs.iter().flat_map(|d| run_ids(d)).collect();
    assert_eq!(ids.len(), 20, "one result in each: {dirs:?}");
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 20, "each directory holds its own run's result");
}

#[test]
fn an_out_that_holds_results_is_refused_before_running() {
    let cwd = tempfile::tempdir().unwrap();
    let out = cwd.path().join("out");
    let first = sim_run(cwd.path(), &["--ios", "100"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(first.status.success(), "{}", text(&first));
    let kept = run_ids(&out);
    let second = sim_run(cwd.path(), &["--ios", "100", "--seed", "7"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let t = text(&second);
    assert!(!second.status.success(), "{t}");
    assert!(t.contains("already holds results of"), "{t}");
    assert!(t.contains("another --out"), "{t}");
    assert_eq!(run_ids(&out), kept, "the first run's result is untouched");
}

#[test]
fn too_many_bytes_in_flight_are_refused_up_front() {
    let cwd = tempfile::tempdir().unwrap();
    // 512 GiB of buffers: refused before one is allocated, as the message says.
    let o = sim_run(
        cwd.path(),
        &[
            "--threads",
            "8",
            "--qd",
            "1024",
            "--bs",
            "64M",
            "--duration",
            "1",
        ],
    )
    .output()
    .unwrap();
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(t.contains("549755813888 bytes in flight"), "{t}");
    assert!(t.contains("lower --threads, --qd or --bs"), "{t}");
    // No run directory left behind (results/ itself may remain).
    let left = std::fs::read_dir(cwd.path().join("results")).map_or(0, |d| d.count());
    assert_eq!(left, 0, "{t}");
}
