//! A PTS suite on a simulated drive runs each test on a fresh instance of the drive, some at
//! once: a result file per test, the figures whatever the number at once, each as the test run
//! alone gives, and the suite record says how they ran. A suite whose steps do not each purge
//! cannot run them at once.

use std::path::Path;

use serde_json::Value;

use crate::common::*;

const TARGET: &str = "sim:default,capacity=2GiB";
/// Quick steps, more than run at once: a worker takes a second one.
const TESTS: [&str; 3] = ["pts-throughput", "wsat", "pts-xsr"];

fn suite(out: &Path, jobs: &str) {
    let mut cmd = ssdlab();
    cmd.args(["suite", "--methodology", "pts-c", "--quick", "--jobs", jobs]);
    for test in TESTS {
        cmd.args(["--only", test]);
    }
    let o = cmd
        .args(["--target", TARGET, "--no-store", "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
}

/// A result's figures: all of it but when it ran, its run and the host CPU it took.
fn figures(path: &Path) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for key in ["started_at", "run_id", "cpu"] {
                    map.remove(key);
                }
                map.values_mut().for_each(strip);
            }
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut v: Value = serde_json::from_str(&text).unwrap();
    strip(&mut v);
    v
}

fn at_once(dir: &Path) -> Value {
    let rec = suite::runner::read_suite(dir).unwrap();
    serde_json::to_value(rec.fresh_instances).unwrap()
}

#[test]
fn pts_steps_run_on_fresh_instances_with_the_figures_of_each_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (two, one) = (dir.path().join("two"), dir.path().join("one"));
    suite(&two, "2");
    suite(&one, "1");
    assert_eq!(at_once(&two), serde_json::json!({ "at_once": 2 }));
    assert_eq!(at_once(&one), serde_json::json!({ "at_once": 1 }));
    for test in TESTS {
        let file = format!("{test}.json");
        assert_eq!(
            figures(&two.join(&file)),
            figures(&one.join(&file)),
            "{test}"
        );
    }
    assert_eq!(result_files(&two), TESTS.len());

    let alone = dir.path().join("alone");
    let o = ssdlab()
        .args(["run", "pts-throughput", "--target", TARGET])
        .args(["--pts", "client", "--pts-scale", "0.05", "-q", "--no-store"])
        .arg("--out")
        .arg(&alone)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(
        figures(&alone.join("pts-throughput.json")),
        figures(&two.join("pts-throughput.json"))
    );
}

#[test]
fn steps_that_do_not_each_purge_run_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let o = ssdlab()
        .args([
            "suite",
            "--jobs",
            "2",
            "--target",
            "sim:default",
            "--no-store",
        ])
        .arg("--out")
        .arg(dir.path().join("review"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(
        text(&o).contains("--jobs 2: steps run at once only on a simulated drive"),
        "{}",
        text(&o)
    );
}
