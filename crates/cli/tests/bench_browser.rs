//! The Bench web page in a real browser: three simulated drives stored by quick suites,
//! `ssdlab bench serve` on a free port, and headless Chromium on `/compare` switching the
//! consistency charts' drive and spare-area selectors, seeing the chart change each time,
//! with no console error. Skipped where Chromium is not installed (apt-get install chromium).

mod common;
use common::cdp::{Browser, Page};
use common::*;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

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
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(
        s,
        "{method} {target} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn status(response: &str) -> &str {
    response.split(' ').nth(1).unwrap_or("")
}

/// The consistency chart sets a user sees: drive, spare area and the chart markup.
fn visible_sets(browser: &mut Browser, page: &Page) -> Vec<Value> {
    let js = "[...document.querySelectorAll('#consistency .cset')]\
              .filter(c => !c.hidden && c.offsetParent !== null && c.getBoundingClientRect().height > 0)\
              .map(c => ({drive: c.dataset.drive, spare: c.dataset.spare,\
                          charts: c.querySelectorAll('svg').length,\
                          svg: [...c.querySelectorAll('svg')].map(s => s.outerHTML).join('')}))";
    browser
        .eval(page, js)
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn choose(browser: &mut Browser, page: &Page, select: &str, value: &str) {
    let js = format!(
        "(() => {{ const s = document.getElementById({}); s.value = {}; \
         s.dispatchEvent(new Event('change', {{bubbles: true}})); return s.value; }})()",
        json!(select),
        json!(value)
    );
    assert_eq!(
        browser.eval(page, &js),
        json!(value),
        "#{select} took {value}"
    );
}

/// The only visible chart set, with its drive, spare area and markup.
fn the_visible(browser: &mut Browser, page: &Page) -> (String, String, String) {
    let sets = visible_sets(browser, page);
    assert_eq!(sets.len(), 1, "exactly one chart set visible: {sets:?}");
    let v = &sets[0];
    assert_eq!(v["charts"], 3, "the three consistency views");
    let s = |k: &str| v[k].as_str().unwrap().to_string();
    (s("drive"), s("spare"), s("svg"))
}

#[test]
fn bench_compare_page_switches_consistency_charts() {
    let dir = tempfile::tempdir().unwrap();
    let Some(mut browser) = Browser::launch(&dir.path().join("profile")) else {
        return;
    };
    let db = dir.path().join("bench.db");
    for (i, target) in [
        "sim:default",
        "sim:default,capacity=4GiB",
        "sim:default,channels=2",
    ]
    .iter()
    .enumerate()
    {
        let o = ssdlab()
            .env("SSDLAB_DB", &db)
            .args(["suite", "--target", target, "--quick", "-q"])
            .args(["--only", "consistency", "--only", "transfer-sweep"])
            .arg("--out")
            .arg(dir.path().join(format!("run{i}")))
            .output()
            .unwrap();
        assert!(o.status.success(), "suite on {target}: {}", text(&o));
    }
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

    let page = browser.new_page();
    browser.set_viewport(&page, 1280, 1000);

    // The drive list: the filter hides rows, the Compare button asks for the ticked drives.
    browser.navigate(&page, &server.url("/"));
    let rows =
        "[...document.querySelectorAll('#drives tr[data-kind]')].filter(r => !r.hidden).length";
    assert_eq!(browser.eval(&page, rows), 3);
    let filter =
        "(() => { const f = document.getElementById('drive-filter'); f.value = 'channels=2'; \
                  f.dispatchEvent(new Event('input')); return 0; })()";
    browser.eval(&page, filter);
    assert_eq!(browser.eval(&page, rows), 1, "the text filter");
    let tick = "(() => { const box = document.querySelector('#drives tr[data-kind]:not([hidden]) input[name=d]'); \
                box.checked = true; document.querySelector('#drive-form button[type=submit]').click(); \
                return box.value; })()";
    let ticked = browser.eval(&page, tick);
    browser.wait_event(&page, "Page.loadEventFired");
    assert_eq!(
        browser.eval(&page, "location.pathname + location.search"),
        json!(format!("/compare?d={}", ticked.as_str().unwrap())),
        "Compare asks for the ticked drive"
    );
    assert_eq!(
        browser.eval(
            &page,
            "document.querySelectorAll('#consistency-drive option').length"
        ),
        1
    );

    browser.navigate(&page, &server.url("/compare"));
    let options = |browser: &mut Browser, id: &str| -> Vec<String> {
        let js = format!("[...document.getElementById('{id}').options].map(o => o.value)");
        serde_json::from_value(browser.eval(&page, &js)).unwrap()
    };
    let drives = options(&mut browser, "consistency-drive");
    assert_eq!(drives.len(), 3, "three drives to choose from: {drives:?}");
    let spares = options(&mut browser, "consistency-spare");
    assert_eq!(spares, ["default", "25"]);
    assert_eq!(
        browser.eval(
            &page,
            "document.querySelectorAll('#consistency .cset').length"
        ),
        6,
        "a chart set per drive and spare area"
    );

    let (drive0, spare0, svg0) = the_visible(&mut browser, &page);
    assert_eq!(
        (drive0.as_str(), spare0.as_str()),
        (drives[0].as_str(), "default")
    );

    // Another drive: its charts, same spare area.
    choose(&mut browser, &page, "consistency-drive", &drives[1]);
    let (drive1, spare1, svg1) = the_visible(&mut browser, &page);
    assert_eq!(
        (drive1.as_str(), spare1.as_str()),
        (drives[1].as_str(), "default")
    );
    assert_ne!(svg1, svg0, "the chart changed with the drive");

    // 25% spare area: same drive, other charts.
    choose(&mut browser, &page, "consistency-spare", "25");
    let (drive2, spare2, svg2) = the_visible(&mut browser, &page);
    assert_eq!(
        (drive2.as_str(), spare2.as_str()),
        (drives[1].as_str(), "25")
    );
    assert_ne!(svg2, svg1, "the chart changed with the spare area");
    assert_ne!(svg2, svg0);
    assert_eq!(
        browser.eval(&page, "document.getElementById('consistency-none').hidden"),
        true
    );

    // Charts link to the results that made them, and those pages load.
    let link = browser.eval(
        &page,
        "[...document.querySelectorAll('#consistency .cset')].find(c => !c.hidden)\
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
    let (w, h) = (
        u32::from_be_bytes(bytes[16..20].try_into().unwrap()),
        u32::from_be_bytes(bytes[20..24].try_into().unwrap()),
    );
    assert_eq!((w, h), (1280, 1000), "the viewport's size");
    assert!(bytes.len() > 20_000, "a PNG of {} bytes", bytes.len());

    browser.navigate(&page, &server.url(&link));
    assert_eq!(
        browser.eval(&page, "!!document.getElementById('parameters')"),
        true
    );
    browser.navigate(&page, &server.url("/run/1"));
    assert_eq!(
        browser.eval(&page, "document.querySelectorAll('svg').length > 0"),
        true
    );

    // Console events may trail the last reply; a round trip later they are in.
    browser.eval(&page, "0");
    let errors = browser.console_errors();
    assert!(errors.is_empty(), "console errors: {errors:?}");
    drop(server);
}
