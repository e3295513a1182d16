//! `trace gen` makes Storage Bench traces whose `trace stats` give the published figures,
//! queue depth and QD1 share included: their completion times are written, and a format that
//! cannot hold them is never chosen silently by an output file's extension.

use crate::common::*;

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b
}

fn stats(path: &std::path::Path) -> serde_json::Value {
    let o = run(&["trace", "stats", path.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn generated_traces_give_the_published_queue_depth_and_qd1_share() {
    let dir = tempfile::tempdir().unwrap();
    for (profile, scale, qd, qd1) in [
        ("heavy-2011", "0.05", 4.625, Some(0.59)),
        ("destroyer-2013", "0.002", 5.5, None),
    ] {
        let out = dir.path().join(format!("{profile}.ssdt"));
        let o = run(&[
            "trace",
            "gen",
            profile,
            "--scale",
            scale,
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", text(&o));
        let s = stats(&out);
        let got = s["avg_queue_depth"].as_f64().expect("a queue depth");
        assert!(
            rel(got, qd) < 0.01,
            "{profile}: average QD {got}, published {qd}"
        );
        if let Some(want) = qd1 {
            let got = s["qd1_share"].as_f64().unwrap();
            assert!(
                rel(got, want) < 0.01,
                "{profile}: QD1 {got}, published {want}"
            );
        }
        // The table shows them too, not "n/a".
        let o = run(&["trace", "stats", out.to_str().unwrap()]);
        let t = text(&o);
        assert!(t.contains("average queue depth (busy)"), "{t}");
        assert!(!t.contains("n/a"), "{t}");
    }
}

#[test]
fn an_extension_never_silently_picks_a_format_without_completion_times() {
    let dir = tempfile::tempdir().unwrap();
    for ext in ["trace", "fio"] {
        let out = dir.path().join(format!("heavy.{ext}"));
        let args = [
            "trace",
            "gen",
            "heavy-2011",
            "--scale",
            "0.01",
            "-o",
            out.to_str().unwrap(),
        ];
        let o = run(&args);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{t}");
        assert!(t.contains("no completion times"), "{t}");
        assert!(t.contains(".ssdt"), "names the native format: {t}");
        assert!(t.contains("--to"), "names how to insist: {t}");
        assert!(!out.exists(), "{t}");
    }
    // Asked for explicitly, it is written, with a note; its stats say why the queue depth
    // is missing.
    let out = dir.path().join("heavy.trace");
    let o = run(&[
        "trace",
        "gen",
        "heavy-2011",
        "--scale",
        "0.01",
        "--to",
        "disksim",
        "-o",
        out.to_str().unwrap(),
    ]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("no completion times"), "{t}");
    let o = run(&["trace", "stats", out.to_str().unwrap()]);
    assert!(
        text(&o).contains("records no completion times"),
        "{}",
        text(&o)
    );
}

#[test]
fn a_scale_beyond_the_most_is_refused_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("light.ssdt");
    let most = trace::synth::MAX_SCALE;
    for scale in ["1e9".to_string(), (most * 1.5).to_string()] {
        let o = run(&[
            "trace",
            "gen",
            "light-2011",
            "--scale",
            &scale,
            "-o",
            out.to_str().unwrap(),
        ]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{scale}: {t}");
        assert!(t.contains(&format!("most, {most}")), "{scale}: {t}");
        assert!(t.contains("--scale"), "{scale}: names the fix: {t}");
        assert!(!out.exists(), "{scale}: wrote {t}");
    }
}

#[test]
fn a_trace_larger_than_the_free_space_is_refused_before_writing() {
    let Some(fs) = Tmpfs::mount("trace-gen", "1M") else {
        return;
    };
    let out = fs.dir.join("light.ssdt");
    let o = run(&["trace", "gen", "light-2011", "-o", out.to_str().unwrap()]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("needs about"), "the size needed: {t}");
    assert!(t.contains("free"), "the room there is: {t}");
    assert!(!out.exists(), "{t}");
    // A trace that fits is written.
    let o = run(&[
        "trace",
        "gen",
        "light-2011",
        "--scale",
        "0.01",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
}
