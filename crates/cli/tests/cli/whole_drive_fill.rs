//! The whole-drive fill finds a simulated drive's SLC cache: its size (the preset's) and the
//! speed after it (the same drive's writes with the cache switched off); a drive without one
//! reports none.

use crate::common::*;

fn json_of(args: &[&str], dir: &std::path::Path) -> serde_json::Value {
    let json = dir.join(format!("{}.json", args[1]));
    let o = ssdlab()
        .args(args)
        .args(["--no-store", "-q", "--json"])
        .arg(&json)
        .arg("--out")
        .arg(dir.join(args[1]))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
}

#[test]
fn the_fill_finds_turbowrite_and_the_speed_after_it() {
    let dir = tempfile::tempdir().unwrap();
    let evos: Vec<&str> = (sim::presets().into_iter())
        .map(|(name, _)| name)
        .filter(|name| name.starts_with("840-evo"))
        .collect();
    assert_eq!(evos.len(), 8, "{evos:?}");
    for preset in evos {
        let cache_bytes = sim::resolve(preset).unwrap().slc.bytes as f64;
        assert!(cache_bytes > 0.0);
        let target = format!("sim:{preset}");
        let fill = json_of(
            &["run", "whole-drive-fill", "--target", &target],
            &dir.path().join(preset),
        );
        let a = &fill["analysis"];
        let found = a["cache"]["bytes"].as_f64().expect("a cache found");
        assert!(a.get("stopped_short").is_none(), "a whole fill: {a}");
        assert!(
            (found / cache_bytes - 1.0).abs() < 0.10,
            "{preset}: cache {found} bytes, the preset's {cache_bytes}"
        );
        let no_cache = format!("sim:{preset},slc_cache=0");
        let direct = json_of(
            &[
                "run",
                "custom",
                "--target",
                &no_cache,
                "--access",
                "sequential",
                "--bs",
                "128K",
                "--qd",
                "32",
                "--read-pct",
                "0",
                "--duration",
                "30",
            ],
            &dir.path().join(preset),
        );
        let (after, direct) = (
            a["after_cache_mbps"].as_f64().unwrap(),
            direct["summary"]["mbps"].as_f64().unwrap(),
        );
        assert!(
            (after / direct - 1.0).abs() < 0.05,
            "{preset}: {after} MB/s after the cache, {direct} without one"
        );
        let capacity_gb = fill["target"]["capacity_bytes"].as_f64().unwrap() / 1e9;
        assert!(
            a["per_gb"].as_array().unwrap().len() as f64 >= capacity_gb.floor() - 1.0,
            "{preset}: a point per GB"
        );
    }

    let plain = json_of(
        &["run", "whole-drive-fill", "--target", "sim:default"],
        dir.path(),
    );
    assert!(
        plain["analysis"]["cache"].is_null(),
        "{}",
        plain["analysis"]
    );
}

/// A fill stopped by --duration says how far it got, and a cache it did not reach is "not in
/// the part written", not "no cache" (wf4).
#[test]
fn a_fill_stopped_short_says_how_far_it_got() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("fill.json");
    let o = ssdlab()
        .args([
            "run",
            "whole-drive-fill",
            "--target",
            "sim:default,capacity=8G",
        ])
        .args(["--duration", "1", "--no-store", "--json"])
        .arg(&json)
        .arg("--out")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let deviations: Vec<&str> = r["deviations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d.as_str())
        .collect();
    let stopped = deviations
        .iter()
        .find(|d| d.starts_with("duration 1 s: stopped after 1.0 s with "))
        .unwrap_or_else(|| panic!("{deviations:?}"));
    assert!(stopped.contains("% of the span written (") && stopped.contains(" of 8 GiB)"));
    assert!(!deviations.iter().any(|d| d.contains("instead of 0 s")));
    // The JSON says why `cache` is null: none in the part written, not none at all.
    assert!(r["analysis"]["cache"].is_null(), "{}", r["analysis"]);
    let short = &r["analysis"]["stopped_short"];
    assert_eq!(short["span_bytes"], 8u64 << 30, "{}", r["analysis"]);
    assert_eq!(short["written_bytes"], r["summary"]["bytes"], "{short}");
    assert!(
        t.contains("no write cache found in the part written"),
        "{t}"
    );
    assert!(t.contains("deviation: duration 1 s: stopped after"), "{t}");
}
