//! An interrupted suite carries on with `--resume DIR` from the first step not completed,
//! keeping what was already measured.

use crate::common::*;

#[test]
fn resume_keeps_completed_steps_and_reruns_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("review");
    let db = dir.path().join("bench.db");
    let o = ssdlab()
        .env("SSDLAB_DB", &db)
        .args(["suite", "--target", "sim:default", "--quick", "-q"])
        .args(["--only", "seq-incompressible", "--only", "transfer-sweep"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let suite_json = out.join("suite.json");
    let mut rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&suite_json).unwrap()).unwrap();
    let steps = rec["steps"].as_array().unwrap();
    assert!(steps.iter().all(|s| s["status"] == "complete"), "{rec}");
    let kept = std::fs::read_to_string(out.join("transfer-sweep-read.json")).unwrap();

    // As if interrupted during the second step.
    rec["steps"][1]["status"] = "incomplete".into();
    rec["complete"] = false.into();
    std::fs::write(&suite_json, serde_json::to_string_pretty(&rec).unwrap()).unwrap();
    std::fs::remove_file(out.join("seq-incompressible-read.json")).unwrap();

    let o = ssdlab()
        .env("SSDLAB_DB", &db)
        .args([
            "suite",
            "--only",
            "seq-incompressible",
            "--only",
            "transfer-sweep",
            "--resume",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("transfer-sweep: already complete, kept"), "{t}");
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&suite_json).unwrap()).unwrap();
    assert_eq!(rec["complete"], true);
    assert!(
        out.join("seq-incompressible-read.json").exists(),
        "the unfinished step ran again"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("transfer-sweep-read.json")).unwrap(),
        kept,
        "completed results untouched"
    );
    assert!(out.join("report.html").exists());

    // The Bench holds the suite once, complete, with every result.
    let runs = stored_runs(&db);
    assert_eq!(runs.len(), 1, "{runs:?}");
    assert_eq!(runs[0]["run"]["complete"], true);
    let stored = runs[0]["results"].as_array().unwrap().len();
    assert_eq!(stored, result_files(&out));
}

#[test]
fn resume_with_only_runs_that_step_and_leaves_the_others_pending() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("review");
    let o = ssdlab()
        .args([
            "suite",
            "--target",
            "sim:default",
            "--quick",
            "-q",
            "--no-store",
        ])
        .args(["--only", "seq-incompressible", "--only", "transfer-sweep"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    // As if interrupted before either step ran.
    let suite_json = out.join("suite.json");
    let read = || -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(&suite_json).unwrap()).unwrap()
    };
    let mut rec = read();
    for step in rec["steps"].as_array_mut().unwrap() {
        step["status"] = "pending".into();
    }
    rec["complete"] = false.into();
    std::fs::write(&suite_json, serde_json::to_string_pretty(&rec).unwrap()).unwrap();

    let o = ssdlab()
        .args([
            "suite",
            "--no-store",
            "--only",
            "transfer-sweep",
            "--resume",
        ])
        .arg(&out)
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let rec = read();
    let status = |id: &str| {
        let steps = rec["steps"].as_array().unwrap();
        let step = steps.iter().find(|s| s["id"] == id);
        step.map(|s| s["status"].clone())
    };
    assert_eq!(status("transfer-sweep"), Some("complete".into()), "{rec}");
    assert_eq!(
        status("seq-incompressible"),
        Some("pending".into()),
        "{rec}"
    );
    assert_eq!(rec["complete"], false, "{rec}");
    assert!(
        t.contains("seq-incompressible still to run") && t.contains("--resume"),
        "says which steps remain and how to run them: {t}"
    );
}
