//! The 2018-2021 reviews' methodology from the command line: `suite --methodology
//! review-2021 --quick` runs every step, a result file each, the empty and full drives'
//! apart, and the report draws their sections.

use crate::common::*;

#[test]
fn the_2021_methodology_runs_every_step_on_an_empty_and_a_full_drive() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("suite");
    let o = ssdlab()
        .args(["suite", "--methodology", "review-2021", "--quick"])
        .args([
            "--target",
            "sim:default,capacity=4GiB",
            "--no-store",
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let rec = suite::runner::read_suite(&out).unwrap();
    assert_eq!(
        rec.methodology,
        suite::methodologies::Methodology::Review2021
    );
    assert!(rec.complete);
    let mut stems = Vec::new();
    for (path, r) in suite::results_dir::read_results_with_paths(&out).expect("results load") {
        assert!(r.complete, "{}", r.file_stem());
        assert_eq!(path.file_stem().unwrap(), r.file_stem().as_str());
        stems.push(r.file_stem());
    }
    for test in [
        "sweep-random-read",
        "sweep-seq-write",
        "mixed-random",
        "mixed-seq",
    ] {
        for state in ["empty", "full"] {
            let stem = format!("{test}-{state}");
            assert!(stems.contains(&stem), "{stem} in {stems:?}");
        }
    }
    for stem in [
        "whole-drive-fill",
        "storage-bench-heavy-2011",
        "storage-bench-heavy-2011-full",
        "idle-wake",
        "power-slumber",
    ] {
        assert!(stems.iter().any(|s| s == stem), "{stem} in {stems:?}");
    }
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    for section in ["sweep-random-read", "mixed-seq", "idle-wake"] {
        assert!(
            page.contains(&format!("id=\"{section}\"")),
            "section {section}"
        );
    }
    assert!(page.contains("MB/s, full drive"));
}
