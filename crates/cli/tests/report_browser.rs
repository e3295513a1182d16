//! The review report in a real browser: headless Chromium loads report.html from a quick
//! suite on the simulated drive: every section and chart is there, the spare-area selector
//! switches the consistency charts, points and bars show their values on hover, no text is
//! under 11 px at a desktop or a phone width, a link to a result's parameters opens them,
//! and nothing is logged as an error. Skipped where Chromium is not installed (apt-get
//! install chromium).

mod common;
use common::cdp::Browser;
use common::page_checks::{assert_reads_well, hover_a_point, switch_every_view};
use common::*;

#[test]
fn report_renders_and_reads_well() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mut browser) = Browser::launch(&dir.path().join("profile")) else {
        return;
    };
    let out = dir.path().join("review");
    let o = ssdlab()
        .args([
            "suite",
            "--target",
            "sim:default",
            "--quick",
            "-q",
            "--no-store",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let report = out.join("report.html");
    let html = std::fs::read_to_string(&report).unwrap();
    for remote in ["src=", "href=\"http", "url(", "@import", "fetch(\"http"] {
        assert!(
            !html.contains(remote),
            "the report loads nothing from anywhere ({remote})"
        );
    }
    assert_eq!(html.matches("<script").count(), 1, "one inline script");

    let page = browser.new_page();
    browser.set_viewport(&page, 1280, 1000);
    browser.navigate(&page, &format!("file://{}", report.display()));
    for id in [
        "drives",
        "consistency",
        "corners",
        "seq-incompressible",
        "transfer-sweep",
        "steady-state",
        "trim",
        "storage-bench",
        "parameters",
    ] {
        let js = format!("!!document.getElementById('{id}')");
        assert_eq!(browser.eval(&page, &js), true, "section {id}");
    }
    // The quick run is shorter than the methodology's: the page says so, on the charts too.
    assert_eq!(
        browser.eval(&page, "!!document.querySelector('.banner')"),
        true
    );

    // One drive: the spare-area selector alone, both settings inline.
    assert_eq!(switch_every_view(&mut browser, &page, "#consistency", 3), 2);
    let (point, tip) = hover_a_point(&mut browser, &page, "#consistency");
    assert!(tip.contains("IOPS"), "hover text {tip:?} for {point}");
    let (point, tip) = hover_a_point(&mut browser, &page, "#trim");
    assert!(tip.contains("MB/s"), "hover text {tip:?} for {point}");
    assert_reads_well(&mut browser, &page, 8);

    // A chart's parameters link opens that result's parameters table.
    let opened = browser.eval(
        &page,
        "(() => { const a = document.querySelector('#corners .src a'); a.click(); \
         const d = document.getElementById(a.getAttribute('href').slice(1)); \
         return [d.tagName, d.open, d.querySelectorAll('td').length > 4]; })()",
    );
    assert_eq!(opened, serde_json::json!(["DETAILS", true, true]));

    browser.eval(&page, "0");
    let errors = browser.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:?}");
}
