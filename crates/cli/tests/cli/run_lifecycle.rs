//! A run's results from start to the Bench: each run in a directory of its own, never over
//! another's; a run that measured nothing, or could not, stores nothing.

use std::path::Path;

use crate::common::*;

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
        .map(|_| {
            custom_on_sim_command(&["--ios", "200"])
                .current_dir(cwd.path())
                .spawn()
                .unwrap()
        })
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
    let first = custom_on_sim_command(&["--ios", "100"])
        .current_dir(cwd.path())
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(first.status.success(), "{}", text(&first));
    let kept = run_ids(&out);
    let second = custom_on_sim_command(&["--ios", "100", "--seed", "7"])
        .current_dir(cwd.path())
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
    let o = custom_on_sim_command(&[
        "--threads",
        "8",
        "--qd",
        "1024",
        "--bs",
        "64M",
        "--duration",
        "1",
    ])
    .current_dir(cwd.path())
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

#[test]
fn more_bytes_in_flight_than_the_span_are_refused_up_front() {
    let cwd = tempfile::tempdir().unwrap();
    // 4 threads x QD8 x 1 MiB over 16 MiB: IOs in flight would share their bytes.
    let o = custom_on_sim_command(&[
        "--span",
        "16M",
        "--threads",
        "4",
        "--qd",
        "8",
        "--bs",
        "1M",
        "--duration",
        "2",
    ])
    .current_dir(cwd.path())
    .output()
    .unwrap();
    let t = text(&o);
    assert!(!o.status.success(), "{t}");
    assert!(
        t.contains("keep 33554432 bytes in flight, more than the 16777216-byte span holds"),
        "{t}"
    );
    assert!(
        t.contains("or give a --span (or a target) of at least that"),
        "{t}"
    );
    let left = std::fs::read_dir(cwd.path().join("results")).map_or(0, |d| d.count());
    assert_eq!(left, 0, "{t}");
}
