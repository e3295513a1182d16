//! The Bench web page in a real browser: twenty drives (two simulated drives measured by
//! quick suites, and copies of their results under other names), `ssdlab bench serve` on a
//! free port, and headless Chromium on `/compare`: page weight, every consistency view
//! switched to (fetched on selection), hover text on points and bars, no text under 11 px
//! at a desktop and a phone width, no console error. Skipped where Chromium is not
//! installed (apt-get install chromium).

use crate::common::cdp::Browser;
use crate::common::*;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};
use test_support::http::status;

use crate::common::page_checks::{assert_reads_well, hover_a_point, small_text, switch_every_view};

/// `ssdlab bench serve`, killed when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    fn start(db: &Path, log: &Path) -> Server {
        let mut child = ssdlab()
            .env("SSDLAB_DB", db)
            .args(["bench", "serve", "--listen", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(log).unwrap())
            .spawn()
            .expect("start ssdlab bench serve");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        // Keep reading (and so keep the pipe open) for as long as the server runs.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let mut server = Server {
            child,
            addr: "127.0.0.1:0".parse().unwrap(),
        };
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|e| {
                panic!(
                    "no `Bench: http://...` line from bench serve ({e}): {}",
                    std::fs::read_to_string(log).unwrap_or_default()
                )
            });
        let addr = line
            .strip_prefix("Bench: http://")
            .and_then(|rest| rest.strip_suffix('/'))
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
        server.addr = addr.parse().expect("a socket address");
        server
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One raw HTTP/1.1 request; the whole response (head and body).
fn http(addr: SocketAddr, method: &str, target: &str) -> String {
    test_support::http::request(addr, method, target, Duration::from_secs(30)).unwrap()
}

/// A copy of results directory `from` in `to` as another drive: every result (and the suite
/// record) names its own target, model `model` and serial `serial`, and belongs to run
/// `run_id`.
fn copy_as(from: &Path, to: &Path, model: &str, serial: &str, run_id: &str) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        if !name.ends_with(".json") {
            continue;
        }
        let mut v: Value = serde_json::from_slice(&std::fs::read(entry.path()).unwrap()).unwrap();
        // A simulated drive is known by its spec: the copy gets its own.
        v["target"]["path"] = json!(format!("sim:copy-{serial}"));
        v["target"]["model"] = json!(model);
        v["target"]["serial"] = json!(serial);
        v["run_id"] = json!(run_id);
        if name == "suite.json" {
            v["target_spec"] = json!(format!("sim:copy-{serial}"));
        }
        std::fs::write(to.join(&name), serde_json::to_vec(&v).unwrap()).unwrap();
    }
}

/// A Bench of twenty drives in `dir`: two simulated drives measured by quick suites and
/// eighteen copies of their results under other names.
fn twenty_drives(dir: &Path) -> std::path::PathBuf {
    let db = dir.join("bench.db");
    let measured = ["sim:default", "sim:default,channels=2"];
    for (i, target) in measured.iter().enumerate() {
        let o = ssdlab()
            .env("SSDLAB_DB", &db)
            .args(["suite", "--target", target, "--quick", "-q"])
            .arg("--out")
            .arg(dir.join(format!("run{i}")))
            .output()
            .unwrap();
        assert!(o.status.success(), "suite on {target}: {}", text(&o));
    }
    for n in 2..20 {
        let copy = dir.join(format!("copy{n}"));
        copy_as(
            &dir.join(format!("run{}", n % 2)),
            &copy,
            &format!("Copy drive {n:02} of {}", measured[n % 2]),
            &format!("COPY-{n:02}"),
            &format!("00000000-0000-4000-8000-{n:012}"),
        );
        let o = ssdlab()
            .env("SSDLAB_DB", &db)
            .args(["bench", "import"])
            .arg(&copy)
            .output()
            .unwrap();
        assert!(o.status.success(), "import {n}: {}", text(&o));
    }
    db
}

/// Not a test: how fast Chromium paints `/compare` with twenty drives, over ROUNDS loads
/// (`benches/compare-page.sh`).
#[test]
#[ignore]
fn bench_compare_page_paint() {
    let rounds: usize = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let dir = tempfile::tempdir().unwrap();
    let Some(mut browser) = Browser::launch(&dir.path().join("profile")) else {
        panic!("the benchmark needs chromium");
    };
    let db = twenty_drives(dir.path());
    let server = Server::start(&db, &dir.path().join("serve.log"));
    let compare = http(server.addr, "GET", "/compare?deviating=include");
    let bytes = compare.len() - compare.find("\r\n\r\n").unwrap() - 4;
    let mut paints = Vec::new();
    let mut loads = Vec::new();
    for _ in 0..rounds {
        // A new tab each time: a tab reports its first paint once.
        let page = browser.new_page();
        browser.set_viewport(&page, 1280, 1000);
        // Only the tab in front paints.
        browser.call(Some(&page.session_id), "Page.bringToFront", json!({}));
        browser.navigate(&page, &server.url("/compare?deviating=include"));
        let t = browser.eval(
            &page,
            "new Promise(done => { \
               const load = performance.getEntriesByType('navigation')[0].loadEventEnd; \
               new PerformanceObserver(l => { \
                 const e = l.getEntries().find(e => e.name === 'first-contentful-paint'); \
                 if (e) done([e.startTime, load]); \
               }).observe({type: 'paint', buffered: true}); \
               setTimeout(() => done([null, load]), 5000); })",
        );
        paints.push(t[0].as_f64().unwrap_or(f64::NAN));
        loads.push(t[1].as_f64().unwrap_or(f64::NAN));
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!("/compare with 20 drives: {bytes} bytes");
    println!(
        "first contentful paint: median {:.0} ms of {rounds} loads {paints:.0?}",
        median(&mut paints.clone())
    );
    println!(
        "load event:             median {:.0} ms of {rounds} loads {loads:.0?}",
        median(&mut loads.clone())
    );
}

#[test]
fn bench_compare_page_with_twenty_drives() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mut browser) = Browser::launch(&dir.path().join("profile")) else {
        return;
    };
    let db = twenty_drives(dir.path());
    let server = Server::start(&db, &dir.path().join("serve.log"));

    // Over the socket: read-only, and no path reaches the file system.
    let head = http(server.addr, "GET", "/");
    assert_eq!(status(&head), "200", "{head}");
    assert!(
        head.contains("Content-Type: text/html; charset=utf-8"),
        "{head}"
    );
    let post = http(server.addr, "POST", "/");
    assert_eq!(status(&post), "405", "{post}");
    assert!(post.contains("Allow: GET, HEAD"), "{post}");
    for target in ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/run/999"] {
        let r = http(server.addr, "GET", target);
        assert_eq!(status(&r), "404", "{target}: {r}");
        assert!(!r.contains("root:"), "{target}");
    }
    assert_eq!(status(&http(server.addr, "GET", "/compare?d=x")), "400");

    // The compare page loads what it shows: twenty drives in well under a megabyte.
    let compare = http(server.addr, "GET", "/compare?deviating=include");
    let body = &compare[compare.find("\r\n\r\n").unwrap() + 4..];
    assert!(
        body.matches("<span class=\"swatch\"").count() >= 20,
        "every drive named"
    );
    assert!(
        body.len() < 1_000_000,
        "/compare with 20 drives is {} bytes",
        body.len()
    );
    println!("/compare with 20 drives: {} bytes", body.len());

    let page = browser.new_page();
    browser.set_viewport(&page, 1280, 1000);

    // The drive list: the filter form asks the server for the matching drives, the Compare
    // button for the ticked ones.
    browser.navigate(&page, &server.url("/"));
    let rows = "document.querySelectorAll('#drives input[name=d]').length";
    assert_eq!(browser.eval(&page, rows), 20);
    let filter =
        "(() => { const q = document.querySelector('input[name=q]'); q.value = 'copy drive 07'; \
                  q.form.submit(); return 0; })()";
    browser.eval(&page, filter);
    browser.wait_event(&page, "Page.loadEventFired");
    assert_eq!(browser.eval(&page, rows), 1, "the text filter");
    let tick = "(() => { const box = document.querySelector('#drives input[name=d]'); \
                box.checked = true; document.querySelector('#drive-form button[type=submit]').click(); \
                return box.value; })()";
    let ticked = browser.eval(&page, tick);
    browser.wait_event(&page, "Page.loadEventFired");
    assert_eq!(
        browser.eval(
            &page,
            "location.pathname + ' ' + new URLSearchParams(location.search).getAll('d')"
        ),
        json!(format!("/compare {}", ticked.as_str().unwrap())),
        "Compare asks for the ticked drive"
    );
    // Unticked, it takes the drives the filter let through.
    // The quick suites deviate: included, as the form's box asks.
    browser.navigate(&page, &server.url("/?q=copy+drive+07&deviating=include"));
    browser.eval(
        &page,
        "(() => { document.querySelector('#drive-form button[type=submit]').click(); return 0; })()",
    );
    browser.wait_event(&page, "Page.loadEventFired");
    let compared = "document.querySelectorAll('#consistency select[data-dim=drive] option').length";
    assert_eq!(browser.eval(&page, compared), 1, "the filtered drive");

    browser.navigate(&page, &server.url("/compare?deviating=include"));
    let drives = browser.eval(
        &page,
        "document.querySelectorAll('#consistency select[data-dim=drive] option').length",
    );
    assert_eq!(drives, 20, "twenty drives to choose from");
    // Every drive and spare-area setting, the views beyond the first fetched on selection.
    let shown = switch_every_view(&mut browser, &page, "#consistency", 4);
    assert_eq!(shown, 40, "20 drives x 2 spare-area settings");
    let fetched = browser.eval(
        &page,
        "document.querySelectorAll('#consistency .view[data-loaded]').length",
    );
    assert_eq!(fetched, 39, "all but the first view fetched when selected");
    assert_eq!(
        switch_every_view(&mut browser, &page, "#steady-state", 1),
        20
    );
    assert_eq!(switch_every_view(&mut browser, &page, "#trim", 1), 20);

    // Hover values on a consistency point and on every bar.
    let (point, tip) = hover_a_point(&mut browser, &page, "#consistency");
    assert!(
        tip.contains("IOPS") && tip.contains(" s,"),
        "hover text {tip:?} for {point}"
    );
    let iops = point[1].as_f64().unwrap();
    let shown_iops: f64 = tip
        .rsplit(", ")
        .next()
        .and_then(|t| t.trim_end_matches(" IOPS").replace(',', "").parse().ok())
        .unwrap_or(f64::NAN);
    assert!(
        (shown_iops - iops).abs() <= 0.5 + iops * 1e-4,
        "{tip:?} for {point}"
    );
    let (point, tip) = hover_a_point(&mut browser, &page, "#transfer-sweep");
    assert!(
        tip.contains("MB/s") && tip.contains("iB"),
        "hover text {tip:?} for {point}"
    );
    assert_reads_well(&mut browser, &page, 20 * 8);

    // Charts link to the results that made them, and those pages load.
    let link = browser.eval(
        &page,
        "[...document.querySelectorAll('#consistency .view')].find(c => !c.hidden)\
         .querySelector('.src a').getAttribute('href')",
    );
    let link = link.as_str().expect("a parameters link").to_string();
    assert!(link.starts_with("/result/"), "{link}");

    browser.eval(
        &page,
        "document.getElementById('consistency').scrollIntoView(); 0",
    );
    let png = dir.path().join("compare.png");
    browser.screenshot(&page, &png);
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(bytes.len() > 20_000, "a PNG of {} bytes", bytes.len());

    browser.navigate(&page, &server.url(&link));
    assert_eq!(
        browser.eval(
            &page,
            "document.querySelectorAll('#parameters ~ div table td').length > 4"
        ),
        true,
        "the parameters as a table"
    );
    browser.navigate(&page, &server.url("/run/1"));
    assert_eq!(
        browser.eval(&page, "document.querySelectorAll('svg').length > 0"),
        true
    );
    assert!(small_text(&mut browser, &page).is_empty());

    // Console events may trail the last reply; a round trip later they are in.
    browser.eval(&page, "0");
    let errors = browser.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:?}");
    drop(server);
}
