//! Polled IO (`--poll`, `--sqpoll`) where this machine can run it; the guest's NVMe drive runs
//! polled completions (`emulated_drives`).

use crate::common::*;

/// Submission polling needs nothing of the device: a file takes it, with threads too.
#[test]
fn a_file_runs_with_a_polling_submission_thread() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("r.json");
    let target = format!("file:{}:16M", dir.path().join("t.img").display());
    let out = run(&[
        "run",
        "custom",
        "--target",
        &target,
        "--no-store",
        "-q",
        "--sqpoll",
        "--threads",
        "2",
        "--qd",
        "4",
        "--read-pct",
        "50",
        "--ios",
        "4000",
        "--backend",
        "io_uring",
        "--json",
        json.to_str().unwrap(),
        "--out",
        dir.path().join("out").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r["summary"]["ios"], 4000);
    assert_eq!(r["target"]["details"]["backend"], "io_uring");
}

/// Polled completions need a block device with poll queues: a file, the sync backend and a
/// simulated drive are refused by name.
#[test]
fn polling_where_nothing_can_be_polled_is_refused_naming_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let file = format!("file:{}:16M", dir.path().join("t.img").display());
    for (target, extra, says) in [
        (file.as_str(), "--poll", "poll queues"),
        (
            file.as_str(),
            "--sqpoll --backend sync",
            "--backend io_uring",
        ),
        ("sim:default", "--poll --sqpoll", "drop --poll and --sqpoll"),
    ] {
        let args: Vec<&str> = ["run", "custom", "--target", target, "--no-store", "-q"]
            .into_iter()
            .chain(extra.split(' '))
            .collect();
        let out = run(&args);
        assert!(!out.status.success(), "{extra} on {target} ran");
        let t = text(&out);
        assert!(t.contains(says), "{extra} on {target}: {t}");
        assert!(!t.contains("panicked"), "{t}");
    }
}
