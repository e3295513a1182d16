//! The power tests on a real block device (a RAM-backed loop device) with a real meter
//! command replaying a recorded power trace, and with one that dies part-way.

use crate::common::*;

use std::path::Path;

fn fixture() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/power-random-write.txt")
        .display()
        .to_string()
}

/// The fixture's readings.
fn fixture_watts() -> Vec<f64> {
    std::fs::read_to_string(fixture())
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.trim().parse().unwrap())
        .collect()
}

/// A meter command printing the fixture's lines 10 ms apart, `times` times over (forever
/// when `None`), as a USB meter's tool would.
fn replay(times: Option<u32>) -> String {
    let once = format!(
        "while IFS= read -r l; do printf '%s\\n' \"$l\"; sleep 0.01; done < '{}'",
        fixture()
    );
    match times {
        None => format!("cmd:while true; do {once}; done"),
        Some(n) => format!("cmd:for i in $(seq {n}); do {once}; done; exit 3"),
    }
}

fn result(dir: &Path, test: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join(format!("{test}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `power-random-write` on `dev` over `span` for `duration` s, read by `meter`, into `out`.
fn random_write_power(
    dev: &LoopDev,
    span: &str,
    duration: &str,
    meter: &str,
    out: &Path,
) -> std::process::Output {
    run(&[
        "run",
        "power-random-write",
        "--target",
        dev.dev(),
        &format!("--destroy-data={}", dev.dev()),
        "--span",
        span,
        "--duration",
        duration,
        "--power-meter",
        meter,
        "--no-store",
        "--out",
        out.to_str().unwrap(),
    ])
}

#[test]
fn random_write_power_is_the_meters_mean_beside_every_second_of_io() {
    let Some(dev) = LoopDev::ram("power", "256M") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let o = random_write_power(&dev, "128M", "8", &replay(None), out.path());
    assert!(o.status.success(), "{}", text(&o));
    let r = result(out.path(), "power-random-write");
    // The meter replays one second of a recorded trace over and over: any 8 s of it has the
    // trace's mean, give or take part of one repetition (at most 0.1% for this trace).
    let watts = fixture_watts();
    let expected = watts.iter().sum::<f64>() / watts.len() as f64;
    let mean = r["power"]["summary"]["mean_w"].as_f64().expect("power");
    assert!(
        (mean - expected).abs() <= 0.01 * expected,
        "mean {mean} W, the trace's {expected} W"
    );
    assert_eq!(r["power"]["basis"], "measured");
    assert_eq!(r["analysis"]["mean_w"].as_f64(), Some(mean));
    let iops = r["summary"]["iops"].as_f64().unwrap();
    let per_w = r["analysis"]["iops_per_w"].as_f64().unwrap();
    assert!((per_w - iops / mean).abs() <= 1e-6 * per_w);
    // Every second of IO has its power, in the trace's range.
    let seconds = r["per_second"].as_array().unwrap();
    assert!(seconds.len() >= 7, "{} seconds", seconds.len());
    let (lo, hi) = watts
        .iter()
        .fold((f64::MAX, 0f64), |(lo, hi), &w| (lo.min(w), hi.max(w)));
    for p in seconds {
        let w = p["watts"]
            .as_f64()
            .unwrap_or_else(|| panic!("no power in {p}"));
        assert!(p["ios"].as_u64().unwrap() > 0);
        assert!((lo..=hi).contains(&w), "{w} W in second {}", p["t"]);
    }
    assert_eq!(r["complete"], true);
    // The CSV carries it too, and the summary says it.
    let csv =
        std::fs::read_to_string(out.path().join("power-random-write.per_second.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let watts = header
        .iter()
        .position(|&c| c == "watts")
        .expect("a watts column");
    for row in csv.lines().skip(1) {
        assert!(!row.split(',').nth(watts).unwrap().is_empty(), "{csv}");
    }
    assert!(text(&o).contains("IOPS per W"), "{}", text(&o));
}

#[test]
fn a_meter_that_dies_leaves_power_missing_not_zero() {
    let Some(dev) = LoopDev::ram("power-dies", "64M") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    // About a second of readings, then the meter exits with status 3: well inside the 8 s
    // even where a loaded machine stretches the meter's pauses several times over.
    let o = run(&[
        "run",
        "power-idle",
        "--target",
        dev.dev(),
        "--rest",
        "0",
        "--duration",
        "8",
        "--power-meter",
        &replay(Some(1)),
        "--no-store",
        "--out",
        out.path().to_str().unwrap(),
    ]);
    // Power is what the test measures: incomplete, with what was read kept.
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let r = result(out.path(), "power-idle");
    assert_eq!(r["complete"], false);
    let missing = &r["power"]["missing"];
    assert!(
        missing["reason"].as_str().unwrap().contains("exited"),
        "{missing}"
    );
    let from = missing["from_s"].as_f64().unwrap();
    assert!(from > 0.0 && from < 8.0, "{from}");
    let seconds = r["per_second"].as_array().unwrap();
    // Eight seconds, and a sliver of a ninth where the last step overshot.
    assert!(
        (8..=9).contains(&seconds.len()),
        "{} seconds",
        seconds.len()
    );
    for p in seconds {
        let t = p["t"].as_f64().unwrap();
        match p["watts"].as_f64() {
            Some(w) => assert!(w > 2.0 && t < from + 1.0, "{w} W at {t} s"),
            None => assert!(t + 1.0 > from, "no power at {t} s, before the meter died"),
        }
    }
    assert!(r["analysis"]["missing"]
        .as_str()
        .unwrap()
        .contains("missing from"));
    assert!(text(&o).contains("missing from"), "{}", text(&o));
    // A loop device has no link power management: said, not failed.
    assert!(r["analysis"]["link_power"]["note"]
        .as_str()
        .unwrap()
        .contains("no link power management"));
}

#[test]
fn without_a_meter_a_real_drive_says_how_to_measure_power() {
    let dir = tempfile::tempdir().unwrap();
    let target = format!("file:{}:16M", dir.path().join("t.img").display());
    let o = run(&["run", "power-idle", "--target", &target, "--no-store"]);
    assert!(!o.status.success());
    assert!(text(&o).contains("--power-meter"), "{}", text(&o));
}

/// A meter that floods (`yes 5.0`, millions of readings a second) is averaged into a
/// thousand readings a second; the result, the terminal and the report's power chart each
/// say so, since the figure is no longer the meter's every reading.
#[test]
fn a_flooding_meter_is_said_averaged_at_every_face() {
    let Some(dev) = LoopDev::ram("power-flood", "64M") else {
        return;
    };
    let out = tempfile::tempdir().unwrap();
    let o = random_write_power(&dev, "32M", "2", "cmd:yes 5.0", out.path());
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let r = result(out.path(), "power-random-write");
    assert_eq!(r["power"]["summary"]["mean_w"].as_f64(), Some(5.0), "{r}");
    let note = r["power"]["note"].as_str().expect("a note on the power");
    assert!(note.contains("averaged"), "{note}");
    assert!(t.contains(note), "the terminal: {t}");
    let report = std::fs::read_to_string(out.path().join("report.html")).unwrap();
    assert!(
        report.contains(note),
        "the report's power chart lacks {note:?}"
    );
}
