//! A small Chrome DevTools Protocol client for tests, with no dependencies beyond libc and
//! serde_json. It drives headless Chromium over `--remote-debugging-pipe`: the browser
//! reads NUL-terminated JSON from its fd 3 and writes replies and events to its fd 4, so
//! there is no port to pick, no websocket, and nothing left listening if a test dies.

use serde_json::{json, Value};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// A page target attached in flatten mode: commands for it carry its session id.
#[derive(Clone, Debug)]
pub struct Page {
    pub target_id: String,
    pub session_id: String,
}

pub struct Browser {
    child: Child,
    to_browser: File,
    /// Parsed messages from a reader thread, so every wait can time out.
    from_browser: Receiver<Value>,
    next_id: u64,
    /// Events seen while waiting for something else, for `wait_event`.
    events: Vec<Value>,
    errors: Vec<String>,
    /// How long any one command or event wait may take before the test fails.
    pub timeout: Duration,
}

/// The first of the usual Chromium names found on PATH.
fn find_browser() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|p| p.is_file())
}

/// A pipe whose ends are close-on-exec, so only the dup2 copies reach the browser.
fn pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    let rc = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
    assert_eq!(rc, 0, "pipe2: {}", io::Error::last_os_error());
    unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
}

impl Browser {
    /// Starts headless Chromium with its profile in `profile_dir`, made if missing (stderr to
    /// `chromium.log` there). `None`, with a note, when no Chromium is installed.
    pub fn launch(profile_dir: &Path) -> Option<Browser> {
        let Some(exe) = find_browser() else {
            test_support::skip(
                "chromium (or chromium-browser, google-chrome) on PATH",
                &test_support::install_hint("chromium"),
            );
            return None;
        };
        let (child_in, to_browser) = pipe();
        let (from_browser, child_out) = pipe();
        let (cin, cout) = (child_in.as_raw_fd(), child_out.as_raw_fd());
        std::fs::create_dir_all(profile_dir).expect("create the profile directory");
        let log = File::create(profile_dir.join("chromium.log")).expect("create chromium.log");
        let mut cmd = Command::new(&exe);
        cmd.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--remote-debugging-pipe",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile_dir.display()))
        .arg("about:blank")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        // Own process group, so Drop can take the renderer and helper processes down too.
        .process_group(0);
        // SAFETY: only async-signal-safe calls between fork and exec. Copy both ends above
        // fd 10 first, so an end that already is fd 3 or 4 is not clobbered by the other
        // dup2; dup2 leaves 3 and 4 without close-on-exec, and the copies are closed.
        unsafe {
            cmd.pre_exec(move || {
                let r = libc::fcntl(cin, libc::F_DUPFD, 10);
                let w = libc::fcntl(cout, libc::F_DUPFD, 10);
                if r < 0 || w < 0 || libc::dup2(r, 3) < 0 || libc::dup2(w, 4) < 0 {
                    return Err(io::Error::last_os_error());
                }
                libc::close(r);
                libc::close(w);
                Ok(())
            });
        }
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", exe.display()));
        // Our copies of the browser's ends must go, or the reader never sees EOF.
        drop((child_in, child_out));

        let (tx, rx) = mpsc::channel();
        let mut reader = BufReader::new(File::from(from_browser));
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            while matches!(reader.read_until(0, &mut buf), Ok(n) if n > 0) {
                if buf.last() == Some(&0) {
                    buf.pop();
                }
                let msg = serde_json::from_slice(&buf).expect("CDP message is not JSON");
                if tx.send(msg).is_err() {
                    break;
                }
                buf.clear();
            }
        });
        let mut browser = Browser {
            child,
            to_browser: File::from(to_browser),
            from_browser: rx,
            next_id: 0,
            events: Vec::new(),
            errors: Vec::new(),
            timeout: Duration::from_secs(30),
        };
        // A first round trip: fails here, clearly, if the pipe flags did not take.
        browser.call(None, "Browser.getVersion", json!({}));
        Some(browser)
    }

    /// Sends a command (to the browser, or to a page session) and returns its `result`,
    /// buffering the events that arrive meanwhile. Panics on a protocol error or timeout.
    pub fn call(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&msg).unwrap();
        bytes.push(0);
        if let Err(e) = self.to_browser.write_all(&bytes) {
            panic!("CDP: sending {method}: {e}");
        }
        let deadline = Instant::now() + self.timeout;
        loop {
            let reply = self.recv(deadline, method);
            if reply["id"] == id {
                if let Some(err) = reply.get("error") {
                    panic!("CDP: {method} failed: {err}");
                }
                return reply["result"].clone();
            }
        }
    }

    /// The next message, within the deadline; events are buffered and checked for errors.
    fn recv(&mut self, deadline: Instant, waiting_for: &str) -> Value {
        let left = deadline.saturating_duration_since(Instant::now());
        let msg = match self.from_browser.recv_timeout(left) {
            Ok(msg) => msg,
            Err(RecvTimeoutError::Timeout) => {
                panic!("CDP: no {waiting_for} within {:?}", self.timeout)
            }
            Err(RecvTimeoutError::Disconnected) => {
                panic!("CDP: browser exited while waiting for {waiting_for} (see chromium.log)")
            }
        };
        if msg.get("method").is_some() {
            self.record_error(&msg);
            self.events.push(msg.clone());
        }
        msg
    }

    /// Waits for (and consumes) the event `method` from `page`, buffered or yet to come.
    pub fn wait_event(&mut self, page: &Page, method: &str) -> Value {
        let is_it = |e: &Value| e["method"] == method && e["sessionId"] == page.session_id.as_str();
        let deadline = Instant::now() + self.timeout;
        let mut seen = 0;
        loop {
            if let Some(i) = self.events[seen..].iter().position(is_it) {
                return self.events.remove(seen + i);
            }
            seen = self.events.len();
            self.recv(deadline, method);
        }
    }

    fn record_error(&mut self, event: &Value) {
        let p = &event["params"];
        let text = |v: &Value| match v {
            Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        let error = match event["method"].as_str().unwrap_or("") {
            "Runtime.consoleAPICalled" if p["type"] == "error" || p["type"] == "assert" => {
                let args = p["args"].as_array().map(Vec::as_slice).unwrap_or(&[]);
                let args: Vec<String> = args
                    .iter()
                    .map(|a| text(a.get("value").or(a.get("description")).unwrap_or(a)))
                    .collect();
                args.join(" ")
            }
            "Runtime.exceptionThrown" => {
                let d = &p["exceptionDetails"];
                text(d["exception"].get("description").unwrap_or(&d["text"]))
            }
            "Log.entryAdded" if p["entry"]["level"] == "error" => text(&p["entry"]["text"]),
            _ => return,
        };
        self.errors.push(error);
    }

    /// Console errors, failed assertions, uncaught exceptions and error log entries from
    /// every page so far.
    pub fn console_errors(&self) -> Vec<String> {
        self.errors.clone()
    }

    /// Opens a blank page and attaches to it, with Page, Runtime and Log events on.
    pub fn new_page(&mut self) -> Page {
        let target = self.call(None, "Target.createTarget", json!({ "url": "about:blank" }));
        let target_id = text_of(&target["targetId"]);
        let params = json!({ "targetId": target_id, "flatten": true });
        let session_id = text_of(&self.call(None, "Target.attachToTarget", params)["sessionId"]);
        let page = Page {
            target_id,
            session_id,
        };
        for domain in ["Page", "Runtime", "Log"] {
            self.call(
                Some(&page.session_id),
                &format!("{domain}.enable"),
                json!({}),
            );
        }
        page
    }

    /// Loads `url` and waits for its load event.
    pub fn navigate(&mut self, page: &Page, url: &str) {
        // A load event left over from an earlier navigation must not end this one's wait.
        let sid = &page.session_id;
        self.events
            .retain(|e| !(e["method"] == "Page.loadEventFired" && e["sessionId"] == sid.as_str()));
        let r = self.call(Some(sid), "Page.navigate", json!({ "url": url }));
        if let Some(err) = r.get("errorText") {
            panic!("CDP: navigating to {url}: {}", text_of(err));
        }
        self.wait_event(page, "Page.loadEventFired");
    }

    /// Evaluates `js` in the page (awaiting a promise) and returns its value; panics with
    /// the exception if it threw.
    pub fn eval(&mut self, page: &Page, js: &str) -> Value {
        let params = json!({ "expression": js, "returnByValue": true, "awaitPromise": true });
        let r = self.call(Some(&page.session_id), "Runtime.evaluate", params);
        if let Some(d) = r.get("exceptionDetails") {
            let what = d["exception"].get("description").unwrap_or(&d["text"]);
            panic!("CDP: `{js}` threw: {}", text_of(what));
        }
        r["result"].get("value").cloned().unwrap_or(Value::Null)
    }

    /// Sets the page's viewport to `width` x `height` CSS pixels at scale 1.
    pub fn set_viewport(&mut self, page: &Page, width: u32, height: u32) {
        let params = json!({
            "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false
        });
        self.call(
            Some(&page.session_id),
            "Emulation.setDeviceMetricsOverride",
            params,
        );
    }

    /// Writes a PNG screenshot of the page's viewport to `path`.
    pub fn screenshot(&mut self, page: &Page, path: &Path) {
        let params = json!({ "format": "png" });
        let r = self.call(Some(&page.session_id), "Page.captureScreenshot", params);
        let png = base64_decode(r["data"].as_str().expect("screenshot data"));
        std::fs::write(path, png).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // The whole process group: the browser and the renderers it started.
        unsafe { libc::kill(-(self.child.id() as libc::pid_t), libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

fn text_of(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// Standard base64 (screenshots only), so tests need no extra crate.
fn base64_decode(s: &str) -> Vec<u8> {
    let sextet = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("bad base64 byte {c:#x}"),
    };
    let (mut out, mut acc, mut bits) = (Vec::with_capacity(s.len() / 4 * 3), 0u32, 0);
    for c in s.bytes().filter(|&c| c != b'=' && !c.is_ascii_whitespace()) {
        acc = (acc << 6 | u32::from(sextet(c))) & 0xffff;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}
