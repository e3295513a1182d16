//! The first SNIA PTS test, write saturation, on a simulated drive with a small bound: it runs
//! by name, its result loads with its rounds against time and bytes written, and the report
//! draws them.

use crate::common::*;

#[test]
fn wsat_runs_by_name_and_its_rounds_load_and_show() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("wsat");
    let o = ssdlab()
        .env("SSDLAB_DB", dir.path().join("bench.db"))
        .args(["run", "wsat", "--target", "sim:default", "--bytes", "256M"])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));

    let results = suite::results_dir::read_results(&out).expect("the result loads");
    let [r] = &results[..] else {
        panic!("one result: {results:?}")
    };
    assert_eq!(r.test, suite::TestId::Wsat);
    let a = r.saturation().expect("saturation figures");
    assert_eq!(a.bound_bytes, 256 << 20);
    let last = a.last().expect("at least one round");
    assert!(last.iops > 0.0, "{a:?}");
    // Every byte of the bound written, on the TGBW axis in 10^9 bytes.
    assert_eq!(last.tgbw, (256u64 << 20) as f64 / 1e9);
    // The spec's T4Q32 (four streams on the simulated drive's clock): only the bound deviates.
    assert_eq!(
        r.label,
        "Write saturation: 4 KiB random write, Q32T4, incompressible"
    );
    assert!(
        r.deviations.iter().all(|d| !d.contains("thread"))
            && r.deviations.iter().any(|d| d.contains("4x the capacity")),
        "{:?}",
        r.deviations
    );

    let report = std::fs::read_to_string(out.join("report.html")).unwrap();
    for shown in [
        "id=\"wsat\"",
        "Write saturation (wsat)",
        "IOPS vs TGBW",
        "IOPS vs time",
    ] {
        assert!(report.contains(shown), "no {shown} in the report");
    }
}
