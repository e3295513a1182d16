//! The two-thread `stats_of_path` gives the same answer as the single pass, and reports errors.

use std::path::Path;

#[test]
fn threaded_stats_equal_single_pass() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.ssdt");
    let mut w = trace::create_writer(&p, trace::Format::Native).unwrap();
    // 0.02 of heavy-2011: about 79,000 IOs, several batches
    trace::synth::generate_into(trace::synth::Profile::heavy_2011(), 0.02, 5, &mut w).unwrap();
    let single = trace::stats::stats_of(trace::open(&p).unwrap()).unwrap();
    let (threaded, skipped) =
        trace::stats::stats_of_path(&p, trace::ReadOptions::default()).unwrap();
    assert_eq!(single, threaded);
    assert_eq!(skipped, 0);

    let bad = dir.path().join("bad.trace");
    std::fs::write(&bad, "1 0 8 8 1\n2 0 8 8 x\n").unwrap();
    let opts = trace::ReadOptions {
        format: Some(trace::Format::DiskSim),
        skip_bad: false,
    };
    assert!(trace::stats::stats_of_path(&bad, opts).is_err());
    let opts = trace::ReadOptions {
        format: Some(trace::Format::DiskSim),
        skip_bad: true,
    };
    let (s, skipped) = trace::stats::stats_of_path(&bad, opts).unwrap();
    assert_eq!((s.ios, skipped), (1, 1));
    assert!(trace::stats::stats_of_path(Path::new("/nonexistent/x"), Default::default()).is_err());
}
