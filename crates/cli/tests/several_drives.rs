//! Several drives at once: `suite` with a --target each reviews them side by side, each into
//! its own directory, stored as its own run; other commands take one target.

mod common;
use common::*;

fn run_id(dir: &std::path::Path) -> String {
    let rec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("suite.json")).unwrap()).unwrap();
    assert_eq!(rec["complete"], true, "{rec}");
    rec["run_id"].as_str().unwrap().to_string()
}

#[test]
fn two_drives_make_two_complete_runs_stored_apart() {
    let tmp = tempfile::tempdir().unwrap();
    let db = tmp.path().join("bench.db");
    let out = tmp.path().join("r");
    let o = ssdlab()
        .args(["suite", "--quick", "--only", "corners"])
        .args(["--target", "sim:default,capacity=2G"])
        .args(["--target", "sim:default,capacity=2G,op=25%"])
        .arg("--db")
        .arg(&db)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let a = out.join("sim_default_capacity_2G");
    let b = out.join("sim_default_capacity_2G_op_25");
    for dir in [&a, &b] {
        assert!(result_files(dir) >= 7, "{}: {t}", dir.display());
        assert!(t.contains(&format!("results: {}", dir.display())), "{t}");
        assert!(dir.join("report.html").exists());
        let worker = std::fs::read_to_string(dir.join("worker.txt")).unwrap();
        assert!(worker.contains("2 drives at once"), "{worker}");
    }
    assert_ne!(run_id(&a), run_id(&b));

    let o = ssdlab()
        .args(["bench", "list", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let list = text(&o);
    assert!(o.status.success(), "{list}");
    let suites = list.lines().filter(|l| l.contains(" suite ")).count();
    assert_eq!(suites, 2, "{list}");
}

#[test]
fn other_commands_take_one_target() {
    let o = run(&[
        "run",
        "seq-read",
        "--target",
        "sim:default",
        "--target",
        "sim:fast",
    ]);
    let t = text(&o);
    assert!(!o.status.success());
    assert!(
        t.contains("only `ssdlab suite` takes several --target"),
        "{t}"
    );
}

#[test]
fn several_drives_refuse_a_shared_meter_and_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let two = ["--target", "sim:default", "--target", "sim:default,op=25%"];
    let o = ssdlab()
        .args(["suite", "--power-meter", "cmd:true"])
        .args(two)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        text(&o).contains("--power-meter measures one drive"),
        "{}",
        text(&o)
    );
    let o = ssdlab()
        .args(["suite", "--resume"])
        .arg(tmp.path())
        .args(two)
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(text(&o).contains("resume each on its own"), "{}", text(&o));
}
