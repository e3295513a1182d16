//! What `trace replay` does with what it is given: a trace without timestamps (fio iolog v2)
//! plays every IO as fast as possible and is refused, with the fix named, by the modes that
//! need times; a trace of no IOs, a queue depth or an idle cap out of range are refused before
//! the target is touched, and no run is stored.

use crate::common::*;

use std::path::{Path, PathBuf};

/// A fio iolog v2 (no timestamps) of `ios` 4 KiB IOs, reads and writes alternating.
fn untimed_trace(dir: &Path, ios: u64) -> PathBuf {
    let mut text = String::from("fio version 2 iolog\n/dev/x add\n/dev/x open\n");
    for i in 0..ios {
        let op = if i % 2 == 0 { "read" } else { "write" };
        text += &format!("/dev/x {op} {} 4096\n", i * 8192);
    }
    text += "/dev/x close\n";
    let path = dir.join(format!("untimed-{ios}.iolog"));
    std::fs::write(&path, text).unwrap();
    path
}

fn replay(trace: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    replay_on("sim:default", trace, out, extra)
}

fn replay_on(target: &str, trace: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "trace",
        "replay",
        trace.to_str().unwrap(),
        "--target",
        target,
        "--no-store",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    run(&args)
}

fn stats(trace: &Path) -> serde_json::Value {
    let o = run(&["trace", "stats", trace.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn an_untimed_trace_replays_every_io_as_fast_as_possible() {
    let dir = tempfile::tempdir().unwrap();
    let trace = untimed_trace(dir.path(), 64);
    let counted = stats(&trace);
    let out = dir.path().join("r");
    let o = replay(&trace, &out, &["--mode", "afap"]);
    assert!(o.status.success(), "{}", text(&o));
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("replay.json")).unwrap()).unwrap();
    let summary = &r["summary"];
    assert_eq!(summary["ios"], counted["ios"], "{summary:#}");
    assert_eq!(summary["read"]["ios"], counted["reads"], "{summary:#}");
    assert_eq!(summary["write"]["ios"], counted["writes"], "{summary:#}");
    assert_eq!(r["analysis"]["adjustments"]["untimed_skipped"], 0, "{r:#}");
}

#[test]
fn a_timed_replay_of_an_untimed_trace_is_refused_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let trace = untimed_trace(dir.path(), 8);
    for mode in ["timed", "idle-capped"] {
        let out = dir.path().join(mode);
        let o = replay(&trace, &out, &["--mode", mode]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{mode}: {t}");
        assert!(t.contains("no timestamp"), "{mode}: says why: {t}");
        assert!(t.contains("--mode afap"), "{mode}: names the fix: {t}");
        assert!(!out.exists(), "{mode}: stored a run: {t}");
    }
}

#[test]
fn a_trace_of_no_ios_is_refused_and_no_run_stored() {
    let dir = tempfile::tempdir().unwrap();
    let trace = untimed_trace(dir.path(), 0);
    for mode in ["afap", "timed"] {
        let out = dir.path().join(mode);
        let o = replay(&trace, &out, &["--mode", mode]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{mode}: {t}");
        assert!(t.contains("holds no IOs"), "{mode}: {t}");
        assert!(!out.exists(), "{mode}: stored a run: {t}");
    }
}

#[test]
fn a_queue_depth_or_idle_cap_out_of_range_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let trace = untimed_trace(dir.path(), 8);
    let max = engine::workload::MAX_QD;
    let qd_range = format!("1 to {max}");
    let too_deep = (max + 1).to_string();
    for (flag, value, range) in [
        ("--qd", "0", qd_range.as_str()),
        ("--qd", too_deep.as_str(), qd_range.as_str()),
        ("--qd", "100000", qd_range.as_str()),
        ("--idle-cap", "-1", "0 or more"),
        ("--idle-cap", "inf", "0 or more"),
        ("--idle-cap", "NaN", "0 or more"),
    ] {
        let out = dir.path().join("r");
        let given = format!("{flag}={value}");
        let o = replay(&trace, &out, &["--mode", "afap", &given]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{given}: {t}");
        assert!(t.contains(&format!("{flag} {value}")), "{given}: {t}");
        assert!(t.contains(range), "{given}: names the range: {t}");
        assert!(!out.exists(), "{given}: stored a run: {t}");
    }
    // The ends of the ranges are taken.
    for given in [format!("--qd={max}"), "--idle-cap=0".into()] {
        let out = dir.path().join("ok");
        let o = replay(&trace, &out, &["--mode", "afap", &given]);
        assert!(o.status.success(), "{given}: {}", text(&o));
        let _ = std::fs::remove_dir_all(&out);
    }
}

/// The Storage Bench replays a trace file idle-capped: one without timestamps is refused
/// after the replay issued nothing, with the reason, and no run is stored.
#[test]
fn the_storage_bench_refuses_an_untimed_trace_and_stores_no_run() {
    let dir = tempfile::tempdir().unwrap();
    let trace = untimed_trace(dir.path(), 8);
    let out = dir.path().join("r");
    let o = run(&[
        "run",
        "storage-bench",
        "--trace",
        trace.to_str().unwrap(),
        "--target",
        "sim:default",
        "--no-store",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert_ne!(o.status.code(), Some(0), "{t}");
    assert!(t.contains("no timestamp"), "says why: {t}");
    assert!(t.contains("--mode afap"), "names the fix: {t}");
    assert_eq!(
        std::fs::read_dir(&out).map_or(0, |d| d.count()),
        0,
        "stored a run: {t}"
    );
}

/// A trace that addresses more than the target holds, with an unaligned IO and one of no
/// bytes: `trace stats` gives its span; the replay warns before it starts, quiet or not, and
/// its result counts the IOs remapped, widened and of no bytes, with the trace's span against
/// the target's.
#[test]
fn a_trace_beyond_the_target_is_said_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let gib = 1u64 << 30;
    let mut text_ = String::from("fio version 2 iolog\n/dev/x add\n/dev/x open\n");
    for (op, offset, len) in [
        ("write", 4096, 4096),
        ("write", 3 * gib, 4096),
        ("read", 3 * gib + 8192, 4096),
        ("write", 100, 1000),
        ("write", 16384, 0),
    ] {
        text_ += &format!("/dev/x {op} {offset} {len}\n");
    }
    text_ += "/dev/x close\n";
    let trace = dir.path().join("wide.iolog");
    std::fs::write(&trace, text_).unwrap();

    let s = stats(&trace);
    assert_eq!(s["lowest_byte"], 100, "{s:#}");
    assert_eq!(s["highest_byte"], 3 * gib + 8192 + 4095, "{s:#}");
    let o = run(&["trace", "stats", trace.to_str().unwrap()]);
    let table = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(table.contains("highest byte addressed"), "{table}");

    let out = dir.path().join("r");
    let o = replay_on("sim:default,capacity=2G", &trace, &out, &["--mode", "afap"]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(
        t.contains("warning:") && t.contains("the target holds 2 GiB"),
        "warns before the replay, though quiet: {t}"
    );
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("replay.json")).unwrap()).unwrap();
    let adjustments = &r["analysis"]["adjustments"];
    assert_eq!(adjustments["remapped_ios"], 2, "{adjustments:#}");
    assert_eq!(adjustments["aligned_ios"], 1, "{adjustments:#}");
    assert_eq!(adjustments["zero_length_ios"], 1, "{adjustments:#}");
    let warnings: Vec<&str> = r["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|w| w.as_str())
        .collect();
    let said = |what: &str| warnings.iter().any(|w| w.contains(what));
    assert!(
        said("2 of the trace's 5 IOs were remapped"),
        "{warnings:#?}"
    );
    assert!(said("the target holds 2 GiB"), "{warnings:#?}");
    assert!(said("widened to whole blocks"), "{warnings:#?}");
    assert!(said("move no bytes"), "{warnings:#?}");
}
