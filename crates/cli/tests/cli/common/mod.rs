//! Helpers for the CLI's integration tests: the binary, and RAM-backed loop devices.
#![allow(dead_code)]

pub mod cdp;
pub mod page_checks;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary, storing its runs in a Bench database of the tests' own, never the user's.
pub fn ssdlab() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ssdlab"));
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR"));
    // Run from a scratch directory: a run given no --out writes ./results, which must never
    // land in the checkout (cargo runs tests from the crate's directory).
    let cwd = scratch.join("cwd");
    std::fs::create_dir_all(&cwd).expect("a scratch directory");
    c.env("SSDLAB_DB", scratch.join("tests-bench.db"))
        .current_dir(cwd);
    c
}

pub fn run(args: &[&str]) -> Output {
    ssdlab().args(args).output().expect("run ssdlab")
}

/// The runs the Bench at `db` holds, as `bench export` gives them.
pub fn stored_runs(db: impl AsRef<std::ffi::OsStr>) -> Vec<serde_json::Value> {
    let o = ssdlab()
        .env("SSDLAB_DB", db)
        .args(["bench", "export"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    let all: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    all["runs"].as_array().unwrap().clone()
}

pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `ssdlab run custom` on `sim:default` with `args`, out of the Bench, not yet started.
pub fn custom_on_sim_command(args: &[&str]) -> Command {
    let mut c = ssdlab();
    c.args([
        "run",
        "custom",
        "--target",
        "sim:default",
        "--no-store",
        "-q",
    ])
    .args(args);
    c
}

/// `ssdlab run custom` on `sim:default` with `args`, out of the Bench, its files under `dir`:
/// its result, once it has succeeded.
pub fn custom_on_sim(dir: &Path, args: &[&str]) -> serde_json::Value {
    let json = dir.join("r.json");
    let out = custom_on_sim_command(args)
        .arg("--json")
        .arg(&json)
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .expect("run ssdlab");
    assert!(out.status.success(), "{}", text(&out));
    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
}

/// How many test results (STEM.json, not suite.json) a results directory holds.
pub fn result_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().to_string();
            n.ends_with(".json") && n != "suite.json"
        })
        .count()
}

/// Wait for `done` to hold (a file appearing, a child's output), looking every 20 ms,
/// failing after `secs`.
pub fn wait_until(secs: u64, done: impl Fn() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while !done() {
        assert!(std::time::Instant::now() < deadline, "not within {secs} s");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Whether `tool` is on PATH (nothing recorded; see `test_support::tool` for a test that
/// needs it).
pub fn have(tool: &str) -> bool {
    test_support::find_tool(tool).is_some()
}

/// A loop device over a file in /dev/shm, detached and removed on drop. `None` where loop
/// devices cannot be made (not root, no losetup, no /dev/shm): the test is skipped, which
/// fails it under CI (see `test_support::skip`).
pub struct LoopDev {
    pub path: PathBuf,
    backing: PathBuf,
    mounted: Option<PathBuf>,
    /// The small filesystem the backing file lives on (dropped after the device).
    _tmpfs: Option<Tmpfs>,
}

/// A tmpfs of a given size mounted on a directory of its own, unmounted on drop.
pub struct Tmpfs {
    pub dir: PathBuf,
}

impl Tmpfs {
    /// Mount a tmpfs of `size` (e.g. "8M"); `None` (a skip, a failure under CI) without root
    /// or mount.
    pub fn mount(name: &str, size: &str) -> Option<Tmpfs> {
        if !test_support::root("to mount a tmpfs")
            || !test_support::tool("mount")
            || !test_support::tool("umount")
        {
            return None;
        }
        let dir = PathBuf::from(format!("/tmp/ssdlab-tmpfs-{name}-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            let _ = std::fs::remove_dir(&dir);
            test_support::skip("mounting a tmpfs", "run as root where mount works");
            return None;
        }
        Some(Tmpfs { dir })
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.dir).status();
        let _ = std::fs::remove_dir(&self.dir);
    }
}

impl LoopDev {
    pub fn ram(name: &str, size: &str) -> Option<LoopDev> {
        if !test_support::root("for a loop device")
            || !test_support::tool("losetup")
            || !test_support::tool("truncate")
        {
            return None;
        }
        if !Path::new("/dev/shm").is_dir() {
            test_support::skip(
                "/dev/shm (for a RAM-backed loop device)",
                "mount a tmpfs on /dev/shm",
            );
            return None;
        }
        let backing = PathBuf::from(format!(
            "/dev/shm/ssdlab-test-{name}-{}.img",
            std::process::id()
        ));
        Self::make(backing, size, &["--direct-io=on"])
            .map_err(|why| test_support::skip(&why, "run as root with loop devices available"))
            .ok()
    }

    /// A read-only loop device (`losetup -r`) over a RAM-backed file.
    pub fn read_only(name: &str, size: &str) -> Option<LoopDev> {
        if !test_support::root("for a loop device")
            || !test_support::tool("losetup")
            || !test_support::tool("truncate")
        {
            return None;
        }
        let backing = PathBuf::from(format!(
            "/dev/shm/ssdlab-test-{name}-{}.img",
            std::process::id()
        ));
        Self::make(backing, size, &["--read-only"])
            .map_err(|why| test_support::skip(&why, "run as root with loop devices available"))
            .ok()
    }

    /// A loop device of `size` whose sparse backing file lives on a tmpfs of only `room`:
    /// writes fail (ENOSPC/EIO) once `room` is used, part-way through a test.
    pub fn over_small_tmpfs(name: &str, size: &str, room: &str) -> Option<LoopDev> {
        if !test_support::tool("losetup") || !test_support::tool("truncate") {
            return None;
        }
        let tmpfs = Tmpfs::mount(name, room)?;
        let backing = tmpfs.dir.join("backing.img");
        let mut dev = Self::make(backing, size, &[])
            .map_err(|why| test_support::skip(&why, "run as root with loop devices available"))
            .ok()?;
        dev._tmpfs = Some(tmpfs);
        Some(dev)
    }

    /// A loop device where one can be made, else `None` without recording a skip: for tests
    /// that fall back to a file.
    pub fn try_ram(name: &str, size: &str) -> Option<LoopDev> {
        let ok = test_support::find_tool("losetup").is_some()
            && unsafe { libc_geteuid() } == 0
            && Path::new("/dev/shm").is_dir();
        if !ok {
            return None;
        }
        let backing = PathBuf::from(format!(
            "/dev/shm/ssdlab-test-{name}-{}.img",
            std::process::id()
        ));
        Self::make(backing, size, &["--direct-io=on"]).ok()
    }

    fn make(backing: PathBuf, size: &str, flags: &[&str]) -> Result<LoopDev, String> {
        let ok = Command::new("truncate")
            .args(["-s", size])
            .arg(&backing)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return Err(format!("a backing file {}", backing.display()));
        }
        let out = Command::new("losetup")
            .args(["--find", "--show"])
            .args(flags)
            .arg(&backing)
            .output()
            .map_err(|e| format!("losetup ({e})"))?;
        if !out.status.success() {
            let _ = std::fs::remove_file(&backing);
            return Err(format!(
                "a free loop device (losetup failed: {})",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        Ok(LoopDev {
            path,
            backing,
            mounted: None,
            _tmpfs: None,
        })
    }

    pub fn dev(&self) -> &str {
        self.path.to_str().unwrap()
    }

    /// The file behind the device.
    pub fn backing(&self) -> &str {
        self.backing.to_str().unwrap()
    }

    /// Make an ext4 filesystem on the device; false (a skip, a failure under CI) if
    /// mkfs.ext4 is missing or fails.
    pub fn mkfs_ext4(&self) -> bool {
        if !test_support::tool("mkfs.ext4") {
            return false;
        }
        let ok = Command::new("mkfs.ext4")
            .args(["-q", "-F"])
            .arg(&self.path)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            test_support::skip(
                "a working mkfs.ext4",
                &test_support::install_hint("mkfs.ext4"),
            );
        }
        ok
    }

    /// Mount the device's filesystem; false (a skip, a failure under CI) if it cannot be.
    pub fn mount(&mut self) -> bool {
        if !test_support::tool("mount") || !test_support::tool("umount") {
            return false;
        }
        let dir = PathBuf::from(format!(
            "/tmp/ssdlab-mnt-{}-{}",
            self.path.file_name().unwrap().to_string_lossy(),
            std::process::id()
        ));
        let _ = std::fs::create_dir_all(&dir);
        let ok = Command::new("mount")
            .arg(&self.path)
            .arg(&dir)
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            self.mounted = Some(dir);
        } else {
            test_support::skip(
                "mounting an ext4 loop device",
                "run as root where mount works",
            );
        }
        ok
    }

    /// Where the filesystem is mounted.
    pub fn mount_point(&self) -> Option<&Path> {
        self.mounted.as_deref()
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        if let Some(dir) = self.mounted.take() {
            let _ = Command::new("umount").arg(&dir).status();
            let _ = std::fs::remove_dir(&dir);
        }
        let _ = Command::new("losetup").arg("-d").arg(&self.path).status();
        let _ = std::fs::remove_file(&self.backing);
    }
}

extern "C" {
    #[link_name = "geteuid"]
    fn libc_geteuid() -> u32;
}
