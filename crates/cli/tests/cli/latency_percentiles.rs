//! Latency percentiles every second: in the result, and as fio's histogram log.

use crate::common::*;

/// A mixed run on a simulated drive: each second's percentiles in the result are those of
/// that second's line of the histogram log (the same buckets), and the log has a line per
/// second and direction in fio's layout.
#[test]
fn each_seconds_percentiles_are_its_hist_log_lines() {
    let dir = tempfile::tempdir().unwrap();
    let hist = dir.path().join("h.log");
    let r = custom_on_sim(
        dir.path(),
        &[
            "--read-pct",
            "50",
            "--qd",
            "32",
            "--duration",
            "4",
            "--hist-log",
            hist.to_str().unwrap(),
        ],
    );
    let lines = engine::measure::hist_log::read(&std::fs::read_to_string(&hist).unwrap()).unwrap();
    let seconds = r["per_second"].as_array().unwrap();
    assert!(seconds.len() >= 4, "{} seconds", seconds.len());
    assert_eq!(
        lines.len(),
        2 * seconds.len(),
        "a line per second and direction"
    );
    for (ms, direction, counts) in &lines {
        let second = &seconds[(*ms / 1000 - 1) as usize];
        let key = if *direction == 0 {
            "read_latency_us"
        } else {
            "write_latency_us"
        };
        let ios: u64 = counts.iter().sum();
        for (pct, field) in [(50.0, "p50"), (99.0, "p99"), (99.9, "p99_9")] {
            // fio's rule on the log's line: the first bucket reaching pct% of its IOs.
            let want = pct / 100.0 * ios as f64;
            let mut sum = 0;
            let bucket = counts
                .iter()
                .position(|&c| {
                    sum += c;
                    c > 0 && sum as f64 >= want
                })
                .unwrap();
            let from_log = engine::measure::bucket_value(bucket) as f64 / 1000.0;
            let reported = second[key][field].as_f64().unwrap();
            let max = second[key]["max"].as_f64().unwrap();
            assert_eq!(reported, from_log.min(max), "{ms} ms, {key}.{field}");
        }
    }
}
