//! The review report in a real browser: headless Chromium loads report.html from a quick
//! suite on the simulated drive: every section and chart is there, the spare-area selector
//! switches the consistency charts, points and bars show their values on hover, no text is
//! under 11 px at a desktop or a phone width, a link to a result's parameters opens them,
//! and nothing is logged as an error. Skipped where Chromium is not installed (apt-get
//! install chromium).

use crate::common::cdp::Browser;
use crate::common::page_checks::{assert_reads_well, hover_a_point, switch_every_view};
use crate::common::*;

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
    with_power(&out);
    let o = ssdlab().arg("report").arg(&out).output().unwrap();
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
        "power",
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
    assert_eq!(switch_every_view(&mut browser, &page, "#consistency", 4), 2);
    let (point, tip) = hover_a_point(&mut browser, &page, "#consistency");
    assert!(tip.contains("IOPS"), "hover text {tip:?} for {point}");
    let (point, tip) = hover_a_point(&mut browser, &page, "#trim");
    assert!(tip.contains("MB/s"), "hover text {tip:?} for {point}");
    assert_reads_well(&mut browser, &page, 8);

    // Power: the four bar charts, a modelled figure said to be one, a missing one written
    // "missing" with no bar; the power under the consistency run and the sequential write.
    let power = browser.eval(
        &page,
        "(() => { const s = document.getElementById('power');          const bars = [...s.querySelectorAll('g.bar')];          return [s.querySelectorAll('.charts > div > figure svg').length,                  bars.filter(b => b.querySelector('title').textContent.includes('not a measurement')).length,                  bars.filter(b => b.textContent.includes('missing') && !b.querySelector('rect')).length,                  document.querySelectorAll('#consistency .view:not([hidden]) figure.power svg').length,                  s.querySelectorAll('figure.power svg').length]; })()",
    );
    assert_eq!(power, serde_json::json!([4, 3, 1, 1, 1]), "power section");

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

/// Power in a quick suite's results, as a run with the simulator's energy model (or a
/// meter) leaves it: every second of the consistency runs has watts but a few (a gap), and
/// the four power tests' results, made from the sequential write's, idle's figure missing.
fn with_power(dir: &std::path::Path) {
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(dir.join(name)).unwrap()).unwrap()
    };
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !(name.starts_with("consistency") && name.ends_with(".json")) {
            continue;
        }
        let mut r = read(&name);
        for (t, p) in r["per_second"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .enumerate()
        {
            if t % 10 != 5 {
                p["watts"] = serde_json::json!(3.0 + (t % 7) as f64 * 0.1);
            }
        }
        std::fs::write(dir.join(&name), serde_json::to_vec(&r).unwrap()).unwrap();
    }
    let base = read("seq-write-incompressible.json");
    let tests = [
        ("power-idle", "idle", None),
        ("power-slumber", "slumber", Some(0.08)),
        ("power-seq-write", "seq-write", Some(3.4)),
        ("power-random-write", "random-write", Some(2.9)),
    ];
    for (test, state, mean) in tests {
        let mut r = base.clone();
        r["test"] = test.into();
        r.as_object_mut().unwrap().remove("variant");
        r["label"] = format!("power: {state}").into();
        if matches!(state, "idle" | "slumber") {
            // An idle test measures no workload: its parameters are the idle's.
            r["parameters"] =
                serde_json::json!({"state": state, "rest_s": 0.0, "duration_s": 60.0});
        }
        let seconds = r["per_second"].as_array().map_or(0, Vec::len);
        for p in r["per_second"].as_array_mut().unwrap() {
            p["watts"] = serde_json::json!(mean);
        }
        r["analysis"] = serde_json::json!({
            "state": state, "mean_w": mean, "min_w": mean, "max_w": mean,
            "basis": mean.map(|_| "model"),
            "mbps_per_w": null, "iops_per_w": null,
            "first_30s_w": mean.filter(|_| state == "seq-write"),
            "after_30s_w": mean.filter(|_| state == "seq-write"),
            "tail_w": mean.filter(|_| state == "seq-write").map(|w| w / 2.0),
            "tail_watts": if state == "seq-write" { vec![mean.map(|w| w / 2.0); 5] } else { vec![] },
            "link_power": null,
            "missing": if mean.is_none() { Some("the meter command exited") } else { None },
        });
        r["power"] = serde_json::json!({
            "source": "sim", "basis": "model", "description": "the simulator's energy model",
            "summary": mean.map(|w| serde_json::json!({"mean_w": w, "min_w": w, "max_w": w,
                "readings": seconds, "window_s": seconds, "covered_s": seconds, "basis": "model"})),
        });
        std::fs::write(
            dir.join(format!("{test}.json")),
            serde_json::to_vec(&r).unwrap(),
        )
        .unwrap();
    }
}

/// The sections of the newer tests (the whole-drive fill, a quick profile, a PTS test) in a
/// real browser:
/// there, their curve's points show their values on hover, no text is under 11 px, and
/// nothing is logged as an error.
#[test]
fn the_fill_and_quick_sections_render_and_read_well() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mut browser) = Browser::launch(&dir.path().join("profile")) else {
        return;
    };
    let pts = [
        "run",
        "pts-iops",
        "--target",
        "sim:default,capacity=2GiB",
        "--pts-scale",
        "0.02",
    ];
    let xsr = [
        "run",
        "pts-xsr",
        "--target",
        "sim:default,capacity=2GiB",
        "--pts-scale",
        "0.02",
    ];
    for (args, section, curve) in [
        (
            &["run", "whole-drive-fill", "--target", "sim:840-evo-120"][..],
            "whole-drive-fill",
            Some(["MB/s", "GB"]),
        ),
        (
            &["run", "quick", "--target", "sim:default"][..],
            "quick",
            None,
        ),
        (&pts[..], "pts-iops", Some(["IOPS", "Round"])),
        (
            &[
                "run",
                "sweep-random-read",
                "--target",
                "sim:default",
                "--duration",
                "1",
            ][..],
            "sweep-random-read",
            Some(["MB/s", "queue depth"]),
        ),
        (
            &[
                "run",
                "idle-wake",
                "--target",
                "sim:default",
                "--rest",
                "0.5",
            ][..],
            "idle-wake",
            Some(["us", "read"]),
        ),
        (&xsr[..], "pts-xsr", Some(["MB/s", "min"])),
    ] {
        let out = dir.path().join(section);
        let o = ssdlab()
            .args(args)
            .args(["-q", "--no-store", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o));
        let page = browser.new_page();
        browser.set_viewport(&page, 1280, 1000);
        browser.navigate(
            &page,
            &format!("file://{}", out.join("report.html").display()),
        );
        let js = format!("!!document.getElementById('{section}')");
        assert_eq!(browser.eval(&page, &js), true, "section {section}");
        if section == "pts-iops" {
            // The IOPS table's 3D plot: a box for each of 8 block sizes x 7 mixes.
            let js = "document.querySelectorAll('#pts-iops g.box').length";
            assert_eq!(browser.eval(&page, js), 56, "boxes of the 3D plot");
        }
        if let Some([unit, axis]) = curve {
            let (point, tip) = hover_a_point(&mut browser, &page, &format!("#{section}"));
            assert!(
                tip.contains(unit) || tip.contains(axis),
                "hover text {tip:?} for {point}"
            );
        }
        assert_reads_well(&mut browser, &page, 0);
        let errors = browser.console_errors();
        assert!(errors.is_empty(), "{section}: console errors: {errors:?}");
    }
}
