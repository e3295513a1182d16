//! A PostgreSQL server of the tests' own: `initdb` into a temporary directory, `postgres`
//! listening on a Unix socket there only (no TCP port), as an unprivileged user when the
//! tests run as root (initdb refuses root). A test may stop it and start it again (a Bench
//! that goes away and comes back). It stops, and its directory goes, when the test process
//! exits, however it exits: a watchdog shell holds the read end of a pipe whose write end
//! only the test process has.
//!
//! Debian's `postgresql` package provides it (`/usr/lib/postgresql/VERSION/bin`; `.ci/run`
//! installs it); `PG_BINDIR` names another directory of `initdb` and `postgres`.

use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// A server, running unless a test stopped it.
pub struct Server {
    dir: PathBuf,
    bin: PathBuf,
    /// The postmaster while it runs.
    running: Mutex<Option<Child>>,
    /// Dropped (closed) when the process exits: the watchdog then stops the server.
    _watchdog: Mutex<(Child, ChildStdin)>,
}

/// The superuser the server is made with.
pub const USER: &str = "ssdlab";

/// The directory of `initdb` and `postgres`: `PG_BINDIR`, else Debian's newest
/// `/usr/lib/postgresql/*/bin`, else PATH.
pub fn bin_dir() -> Option<PathBuf> {
    let has = |d: &Path| d.join("initdb").is_file() && d.join("postgres").is_file();
    if let Some(d) = std::env::var_os("PG_BINDIR").map(PathBuf::from) {
        return has(&d).then_some(d);
    }
    let mut debian: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse::<u32>().ok()?;
            Some((v, e.path().join("bin")))
        })
        .filter(|(_, d)| has(d))
        .collect();
    debian.sort();
    if let Some((_, d)) = debian.pop() {
        return Some(d);
    }
    crate::find_tool("initdb")
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .filter(|d| has(d))
}

/// The server this test process shares (started by the first test that asks), or `None`
/// after [`crate::skip`] when PostgreSQL is not installed (a failure under CI).
pub fn shared() -> Option<&'static Server> {
    static SERVER: OnceLock<Option<Server>> = OnceLock::new();
    let server = SERVER.get_or_init(|| {
        bin_dir()?;
        Some(Server::new().unwrap_or_else(|e| panic!("starting PostgreSQL: {e}")))
    });
    if server.is_none() {
        crate::skip(
            "a PostgreSQL server (initdb and postgres; Debian's postgresql package)",
            "apt-get install postgresql",
        );
    }
    server.as_ref()
}

/// A server of the calling test's own, which it may stop and start (the shared one must keep
/// running for the other tests), or `None` after [`crate::skip`] when PostgreSQL is not
/// installed (a failure under CI).
pub fn private() -> Option<Server> {
    if bin_dir().is_none() {
        crate::skip(
            "a PostgreSQL server (initdb and postgres; Debian's postgresql package)",
            "apt-get install postgresql",
        );
        return None;
    }
    Some(Server::new().unwrap_or_else(|e| panic!("starting PostgreSQL: {e}")))
}

/// Run `program` as the server's owner: `nobody` when the tests run as root.
fn as_owner(program: &Path) -> Command {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        let mut c = Command::new("setpriv");
        c.args([
            "--reuid=nobody",
            "--regid=nogroup",
            "--clear-groups",
            "--reset-env",
        ])
        .arg(program);
        c
    } else {
        Command::new(program)
    }
}

/// Why the test server could not be set up, started, stopped or frozen: a step's own
/// words (initdb's output, an OS error), which vary too much for variants.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PostgresError(String);

impl From<String> for PostgresError {
    fn from(message: String) -> PostgresError {
        PostgresError(message)
    }
}

impl From<&str> for PostgresError {
    fn from(message: &str) -> PostgresError {
        PostgresError(message.to_string())
    }
}

impl Server {
    /// initdb and start a server in a new temporary directory.
    pub fn new() -> Result<Server, PostgresError> {
        static N: AtomicU32 = AtomicU32::new(0);
        let bin = bin_dir().ok_or("no initdb and postgres (apt-get install postgresql)")?;
        let dir = std::env::temp_dir().join(format!(
            "ssdlab-pg-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).unwrap();
            // SAFETY: a valid NUL-terminated path; nobody and nogroup are 65534 on Debian.
            if unsafe { libc::chown(c.as_ptr(), 65534, 65534) } != 0 {
                return Err(format!(
                    "chown {}: {}",
                    dir.display(),
                    std::io::Error::last_os_error()
                )
                .into());
            }
        }
        let data = dir.join("data");
        let out = as_owner(&bin.join("initdb"))
            .arg("-D")
            .arg(&data)
            .args([
                "-U",
                USER,
                "--auth=trust",
                "--no-locale",
                "-E",
                "UTF8",
                "--no-sync",
            ])
            .output()
            .map_err(|e| format!("initdb: {e}"))?;
        if !out.status.success() {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(format!(
                "initdb failed: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
            .into());
        }
        // The watchdog: when its standard input closes (the test process exited) it stops
        // the server, whichever start of it runs then (postmaster.pid names it), and removes
        // the directory.
        let pid_file = shell_quote(&data.join("postmaster.pid").to_string_lossy());
        let script = format!(
            "read _ || true; pid=$(head -n1 {pid_file} 2>/dev/null) && kill -INT \"$pid\" && \
             for _ in $(seq 600); do kill -0 \"$pid\" 2>/dev/null || break; sleep 0.1; done; \
             rm -rf {}",
            shell_quote(&dir.to_string_lossy())
        );
        let mut child = Command::new("sh")
            .args(["-c", &script])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("sh: {e}"))?;
        let stdin = child.stdin.take().expect("piped");
        let server = Server {
            dir,
            bin,
            running: Mutex::new(None),
            _watchdog: Mutex::new((child, stdin)),
        };
        server.start()?;
        Ok(server)
    }

    /// Start the server (again: a stopped one keeps its databases and its socket's path) and
    /// wait until it accepts connections. Nothing to do while it runs.
    pub fn start(&self) -> Result<(), PostgresError> {
        let mut running = self.running.lock().unwrap();
        if running.is_none() {
            let log = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(self.dir.join("log"))
                .map_err(|e| format!("{}: {e}", self.dir.join("log").display()))?;
            let child = as_owner(&self.bin.join("postgres"))
                .arg("-D")
                .arg(self.dir.join("data"))
                .arg("-k")
                .arg(&self.dir)
                .args([
                    "-c",
                    "listen_addresses=",
                    "-c",
                    "fsync=off",
                    "-c",
                    "synchronous_commit=off",
                    "-c",
                    "full_page_writes=off",
                    "-c",
                    "max_connections=200",
                ])
                .stdin(Stdio::null())
                .stdout(log.try_clone().map_err(|e| format!("log: {e}"))?)
                .stderr(log)
                .spawn()
                .map_err(|e| format!("postgres: {e}"))?;
            *running = Some(child);
        }
        drop(running);
        self.wait_ready()
    }

    /// Stop the server (a fast shutdown: its clients are disconnected) and wait until it has
    /// gone, its socket with it. Nothing to do while it is stopped.
    pub fn stop(&self) -> Result<(), PostgresError> {
        let Some(mut child) = self.running.lock().unwrap().take() else {
            return Ok(());
        };
        // SAFETY: kill has no preconditions; the pid is our child's, not yet waited for.
        // `setpriv` (as_owner) execs postgres, so it is the postmaster's.
        if unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) } != 0 {
            return Err(format!("kill postgres: {}", std::io::Error::last_os_error()).into());
        }
        child
            .wait()
            .map_err(|e| format!("wait for postgres: {e}"))?;
        Ok(())
    }

    /// Stop the server's processes where they are (SIGSTOP: the postmaster and every
    /// backend), as a server stuck or paused looks to its clients: connections stay open and
    /// nothing answers. They go on when the guard is dropped.
    pub fn freeze(&self) -> Result<Frozen, PostgresError> {
        let running = self.running.lock().unwrap();
        let postmaster = running.as_ref().ok_or("the server is stopped")?.id();
        // The postmaster first, so it starts no backend after its children are listed.
        let mut frozen = Frozen { pids: Vec::new() };
        frozen.signal(postmaster, libc::SIGSTOP)?;
        let children =
            std::fs::read_to_string(format!("/proc/{postmaster}/task/{postmaster}/children"))
                .map_err(|e| format!("the postmaster's children: {e}"))?;
        for pid in children.split_whitespace().filter_map(|p| p.parse().ok()) {
            frozen.signal(pid, libc::SIGSTOP)?;
        }
        Ok(frozen)
    }

    fn wait_ready(&self) -> Result<(), PostgresError> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let ok = Command::new(self.bin.join("pg_isready"))
                .arg("-h")
                .arg(&self.dir)
                .args(["-U", USER, "-q"])
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                return Ok(());
            }
            if Instant::now() > deadline {
                let log = std::fs::read_to_string(self.dir.join("log")).unwrap_or_default();
                return Err(format!("the server did not start in 60 s: {log}").into());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The directory of its Unix socket.
    pub fn socket_dir(&self) -> &Path {
        &self.dir
    }

    /// A URL of database `db` on this server.
    pub fn url(&self, db: &str) -> String {
        format!("postgres://{USER}@/{db}?host={}", self.dir.display())
    }

    /// A new, empty database of its own; its URL.
    pub fn new_database(&self) -> String {
        static N: AtomicU32 = AtomicU32::new(0);
        let name = format!("t{}", N.fetch_add(1, Ordering::Relaxed));
        let out = Command::new(self.bin.join("createdb"))
            .arg("-h")
            .arg(&self.dir)
            .args(["-U", USER, &name])
            .output()
            .expect("createdb runs");
        assert!(
            out.status.success(),
            "createdb {name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        self.url(&name)
    }
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A frozen server's processes ([`Server::freeze`]): they go on (SIGCONT) when this is
/// dropped, the backends before the postmaster.
pub struct Frozen {
    pids: Vec<u32>,
}

impl Frozen {
    fn signal(&mut self, pid: u32, signal: libc::c_int) -> Result<(), PostgresError> {
        // SAFETY: kill has no preconditions; the pid is the server's postmaster or one of
        // its children, listed just now while the postmaster, which reaps them, is stopped.
        if unsafe { libc::kill(pid as libc::pid_t, signal) } != 0 {
            return Err(format!("kill {pid}: {}", std::io::Error::last_os_error()).into());
        }
        self.pids.push(pid);
        Ok(())
    }
}

impl Drop for Frozen {
    fn drop(&mut self) {
        for &pid in self.pids.iter().rev() {
            // SAFETY: as in signal: the processes stopped, not reaped meanwhile.
            unsafe { libc::kill(pid as libc::pid_t, libc::SIGCONT) };
        }
    }
}
