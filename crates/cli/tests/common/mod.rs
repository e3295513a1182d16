//! Helpers for the CLI's integration tests: the binary, and RAM-backed loop devices.
#![allow(dead_code)]

pub mod cdp;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary, storing its runs in a Bench database of the tests' own, never the user's.
pub fn ssdlab() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ssdlab"));
    c.env(
        "SSDLAB_DB",
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("tests-bench.db"),
    );
    c
}

pub fn run(args: &[&str]) -> Output {
    ssdlab().args(args).output().expect("run ssdlab")
}

pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
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

pub fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A loop device over a file in /dev/shm, detached and removed on drop. `None` (and a
/// message) where loop devices cannot be made: not root, no losetup, no /dev/shm.
pub struct LoopDev {
    pub path: PathBuf,
    backing: PathBuf,
    mounted: Option<PathBuf>,
}

impl LoopDev {
    pub fn ram(name: &str, size: &str) -> Option<LoopDev> {
        let is_root = unsafe { libc_geteuid() } == 0;
        if !is_root || !have("losetup") || !Path::new("/dev/shm").is_dir() {
            eprintln!("skipped: needs root, losetup and /dev/shm for a loop device");
            return None;
        }
        let backing = PathBuf::from(format!(
            "/dev/shm/ssdlab-test-{name}-{}.img",
            std::process::id()
        ));
        let ok = Command::new("truncate")
            .args(["-s", size])
            .arg(&backing)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("skipped: cannot create {}", backing.display());
            return None;
        }
        let out = Command::new("losetup")
            .args(["--find", "--show", "--direct-io=on"])
            .arg(&backing)
            .output()
            .ok()?;
        if !out.status.success() {
            eprintln!(
                "skipped: losetup failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let _ = std::fs::remove_file(&backing);
            return None;
        }
        let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        Some(LoopDev {
            path,
            backing,
            mounted: None,
        })
    }

    pub fn dev(&self) -> &str {
        self.path.to_str().unwrap()
    }

    pub fn mkfs_ext4(&self) -> bool {
        Command::new("mkfs.ext4")
            .args(["-q", "-F"])
            .arg(&self.path)
            .status()
            .is_ok_and(|s| s.success())
    }

    pub fn mount(&mut self) -> bool {
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
        }
        ok
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
