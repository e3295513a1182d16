//! The review report renders in a real browser: headless Chromium loads report.html from a
//! suite run on the simulated drive, finds every chart, logs no errors, and takes a
//! screenshot. Skipped where Chromium is not installed (apt-get install chromium).

mod common;
use common::*;

use std::process::Command;

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| have(c))
}

fn headless(browser: &str, profile: &std::path::Path) -> Command {
    let mut c = Command::new(browser);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    c
}

#[test]
fn report_renders_with_its_charts() {
    let Some(browser) = chromium() else {
        test_support::skip(
            "chromium (or chromium-browser, google-chrome) on PATH",
            &test_support::install_hint("chromium"),
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("review");
    let o = ssdlab()
        .args(["suite", "--target", "sim:default", "--quick", "-q"])
        .args([
            "--only",
            "transfer-sweep",
            "--only",
            "seq-incompressible",
            "--only",
            "consistency",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let report = out.join("report.html");
    let html = std::fs::read_to_string(&report).unwrap();
    assert!(!html.contains("<script"), "the report needs no scripts");
    for remote in ["src=\"http", "href=\"http", "url(", "@import"] {
        assert!(
            !html.contains(remote),
            "the report loads nothing from the network ({remote})"
        );
    }
    let url = format!("file://{}", report.display());

    // The DOM after loading: every chart is there.
    let dom = headless(browser, &dir.path().join("profile1"))
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .unwrap();
    let dom_text = String::from_utf8_lossy(&dom.stdout);
    assert!(dom.status.success(), "{}", text(&dom));
    for id in [
        "consistency",
        "transfer-sweep",
        "seq-incompressible",
        "parameters",
    ] {
        assert!(
            dom_text.contains(&format!("id=\"{id}\"")),
            "section {id} missing"
        );
    }
    // Consistency: three views (both spare-area settings in each); sweep: one; sequential: one.
    let charts = dom_text.matches("<svg").count();
    assert!(charts >= 5, "{charts} charts in the page");
    assert!(dom_text.contains("25% spare area") && dom_text.contains("default spare area"));
    let log = String::from_utf8_lossy(&dom.stderr);
    for line in log.lines() {
        let l = line.to_lowercase();
        assert!(
            !(l.contains("console") && (l.contains("error") || l.contains("uncaught"))),
            "browser console error: {line}"
        );
    }

    // A screenshot a person can look at.
    let png = dir.path().join("report.png");
    let shot = headless(browser, &dir.path().join("profile2"))
        .arg(format!("--screenshot={}", png.display()))
        .arg("--window-size=1200,3000")
        .arg(&url)
        .output()
        .unwrap();
    assert!(shot.status.success(), "{}", text(&shot));
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert!(
        bytes.len() > 20_000,
        "screenshot of {} bytes is too small to hold charts",
        bytes.len()
    );
}
