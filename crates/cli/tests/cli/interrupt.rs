//! Ctrl-C or SIGTERM stops a run cleanly: the results measured so far are written with
//! `complete: false` and the exit status is non-zero.

use crate::common::*;

#[test]
fn sigint_keeps_partial_results() {
    let dir = tempfile::tempdir().unwrap();
    let target = format!("file:{}:64M", dir.path().join("t.img").display());
    let out = dir.path().join("out");
    let json = dir.path().join("r.json");
    let iolog = dir.path().join("io.log");
    let mut child = ssdlab()
        .args([
            "run",
            "random-write",
            "--target",
            &target,
            "--duration",
            "60",
            "-q",
        ])
        .arg("--out")
        .arg(&out)
        .arg("--json")
        .arg(&json)
        .arg("--iolog")
        .arg(&iolog)
        .spawn()
        .unwrap();
    // Interrupted once IOs have completed: the per-IO log reaches its file (a megabyte of
    // records at a time) only then.
    wait_until(60, || std::fs::metadata(&iolog).is_ok_and(|m| m.len() > 0));
    unsafe_kill(child.id(), 2);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(r["complete"], false);
    assert_eq!(r["stopped"]["reason"], "interrupted");
    let ios = r["summary"]["ios"].as_u64().unwrap();
    assert!(ios > 0);
    let series: u64 = r["per_second"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["ios"].as_u64().unwrap())
        .sum();
    assert_eq!(series, ios);
    // The "interrupted" above says the signal ended it, not its 60 s: how soon is not checked.
    assert!(out.join("random-write.per_second.csv").exists());
}

fn unsafe_kill(pid: u32, sig: i32) {
    std::process::Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(pid.to_string())
        .status()
        .unwrap();
}
