//! Several submitting threads: their own queues on a real target, streams on a simulated
//! drive's clock, and one result either way.

use std::path::Path;

use crate::common::*;

fn iops(r: &serde_json::Value) -> f64 {
    r["summary"]["iops"].as_f64().unwrap()
}

/// Where the drive is the bottleneck, threads x QD give what one stream at the same total
/// depth gives: the drive sees the same queue.
#[test]
fn on_a_simulated_drive_threads_are_streams_at_the_same_total_depth() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, load: &[&str]| {
        let sub = dir.path().join(name);
        std::fs::create_dir_all(&sub).unwrap();
        let args = [&["--span", "5%", "--duration", "5"], load].concat();
        custom_on_sim(&sub, &args)
    };
    let cases: [(&[&str], &[&str]); 2] = [
        (&["--qd", "32", "--threads", "4"], &["--qd", "128"]),
        (
            &["--qd", "Q1T4", "--read-pct", "70"],
            &["--qd", "4", "--read-pct", "70"],
        ),
    ];
    for (case, (threads, one_stream)) in cases.into_iter().enumerate() {
        let (t, s) = (
            run(&format!("t{case}"), threads),
            run(&format!("s{case}"), one_stream),
        );
        let ratio = iops(&t) / iops(&s);
        assert!(
            (ratio - 1.0).abs() < 0.01,
            "{threads:?}: {} IOPS against {one_stream:?}: {}",
            iops(&t),
            iops(&s)
        );
        assert_eq!(t["parameters"]["threads"], 4, "{}", t["parameters"]);
        assert!(
            s["parameters"].get("threads").is_none(),
            "one thread is not stored"
        );
    }
}

/// On a file each thread has its own queue: an IO limit is shared out exactly, the depth
/// offered is the threads', each thread's CPU is accounted, and each second's histogram
/// holds every thread's IOs of that second.
#[test]
fn on_a_file_the_threads_results_merge_into_one() {
    let dir = tempfile::tempdir().unwrap();
    let hist = dir.path().join("h.log");
    let json = dir.path().join("r.json");
    let target = format!("file:{}:64M", dir.path().join("t.img").display());
    let out = run(&[
        "run",
        "custom",
        "--target",
        &target,
        "--no-store",
        "-q",
        "--threads",
        "3",
        "--qd",
        "4",
        "--read-pct",
        "50",
        "--ios",
        "30001",
        "--json",
        json.to_str().unwrap(),
        "--hist-log",
        hist.to_str().unwrap(),
        "--out",
        dir.path().join("out").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let s = &r["summary"];
    assert_eq!(s["ios"], 30001);
    assert_eq!(s["max_in_flight"], 12);
    let by_thread = s["cpu_by_thread"].as_array().unwrap();
    assert_eq!(by_thread.len(), 3);
    assert!(by_thread
        .iter()
        .all(|c| c["per_io_us"].as_f64().unwrap() > 0.0));
    // The log's lines of a second and direction count that second's IOs of every thread.
    let lines = engine::measure::hist_log::read(&std::fs::read_to_string(&hist).unwrap()).unwrap();
    let logged: u64 = lines.iter().map(|(_, _, c)| c.iter().sum::<u64>()).sum();
    assert_eq!(logged, 30001);
    for p in r["per_second"].as_array().unwrap() {
        let second = p["t"].as_u64().unwrap();
        let in_log: u64 = lines
            .iter()
            .filter(|(ms, _, _)| *ms == (second + 1) * 1000)
            .map(|(_, _, c)| c.iter().sum::<u64>())
            .sum();
        assert_eq!(in_log, p["ios"].as_u64().unwrap(), "second {second}");
    }
}

fn refused(args: &[&str], dir: &Path, says: &[&str]) {
    let target = format!("file:{}:16M", dir.join("t.img").display());
    let out = run(&[&["run"], args, &["--target", &target, "--no-store", "-q"]].concat());
    assert!(!out.status.success(), "{args:?} ran");
    let t = text(&out);
    for word in says {
        assert!(t.contains(word), "{args:?}: {t}");
    }
    assert!(!t.contains("panicked"), "{t}");
}

#[test]
fn what_threads_cannot_do_is_refused_naming_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let iolog = d.join("io.log");
    let iolog = iolog.to_str().unwrap();
    refused(
        &["custom", "--qd", "Q4T2", "--threads", "3"],
        d,
        &["--threads 3", "Q4T2"],
    );
    refused(&["custom", "--qd", "Q4X2"], d, &["Q32T16"]);
    refused(
        &["custom", "--threads", "2", "--verify", "--read-pct", "0"],
        d,
        &["--threads"],
    );
    refused(
        &[
            "custom",
            "--threads",
            "2",
            "--iolog",
            iolog,
            "--duration",
            "1",
        ],
        d,
        &["--iolog"],
    );
    refused(
        &["custom", "--threads", "2", "--burst", "1M", "--duty", "20"],
        d,
        &["--threads 1"],
    );
    refused(
        &["consistency", "--threads", "2"],
        d,
        &["--threads", "custom"],
    );
}
