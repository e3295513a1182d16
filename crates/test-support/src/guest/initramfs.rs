//! The guest's initramfs: busybox, the drives' kernel modules, the programs under test with
//! their shared libraries, files, one shell script per step, and the `/init` that runs them.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::kernel::{module_bytes, module_name, Kernel};
use super::{Disk, Guest, Scratch};

/// The modules the emulated drives need; their dependencies are added in load order.
const MODULES: &[&str] = &["nvme", "ahci", "sd_mod"];

impl Guest {
    pub(super) fn initramfs(
        &self,
        busybox: &Path,
        kernel: &Kernel,
        tools: &[PathBuf],
        out: &Path,
    ) -> std::io::Result<()> {
        let mut cpio = Cpio::default();
        cpio.file("bin/busybox", &std::fs::read(busybox)?, 0o755);
        let wanted: Vec<&str> = MODULES
            .iter()
            .copied()
            .chain(self.modules.iter().map(String::as_str))
            .collect();
        let modules = kernel.modules_in_load_order(&wanted)?;
        // Stored decompressed, as `NAME.ko`: the kernel is handed the file as it is.
        let load: Vec<String> = modules
            .iter()
            .map(|m| format!("{}.ko", module_name(m)))
            .collect();
        for (m, file) in modules.iter().zip(&load) {
            cpio.file(
                &format!("lib/ssdlab-modules/{file}"),
                &module_bytes(m)?,
                0o644,
            );
        }
        for program in self.programs.iter().chain(tools) {
            let name = program.file_name().unwrap().to_string_lossy();
            cpio.file(&format!("bin/{name}"), &stripped(program)?, 0o755);
            for lib in shared_libraries(program)? {
                let guest = lib.display().to_string();
                cpio.file(guest.trim_start_matches('/'), &std::fs::read(&lib)?, 0o755);
            }
        }
        for (path, data) in &self.files {
            cpio.file(path.trim_start_matches('/'), data, 0o644);
        }
        for (i, (name, command)) in self.steps.iter().enumerate() {
            let file = format!("steps/{i:03}-{name}.sh");
            cpio.file(&file, command.as_bytes(), 0o755);
        }
        let expected: Vec<String> = self.expected_devices();
        cpio.file("init", init_script(&load, &expected).as_bytes(), 0o755);
        std::fs::write(out, cpio.finish())
    }

    fn expected_devices(&self) -> Vec<String> {
        let (mut nvme, mut sata) = (0, 0u8);
        self.disks
            .iter()
            .map(|d| match d {
                Disk::Nvme { .. } => {
                    nvme += 1;
                    format!("/dev/nvme{}n1", nvme - 1)
                }
                Disk::Sata { .. } => {
                    sata += 1;
                    format!("/dev/sd{}", (b'a' + sata - 1) as char)
                }
            })
            .collect()
    }
}

/// The guest's `/init`: load the modules, wait for the drives, run each step between
/// markers, power off.
fn init_script(modules: &[String], devices: &[String]) -> String {
    let load = modules.join(" ");
    let devices = devices.join(" ");
    format!(
        r#"#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin HOME=/tmp
mkdir -p /proc /sys /dev /tmp
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp
# NVMe with a poll queue besides its interrupt-driven ones, for polled IO (--poll).
for m in {load}; do
  args=""; case $m in nvme.ko*) args=poll_queues=1;; esac
  insmod /lib/ssdlab-modules/$m $args || echo "@@@ insmod $m failed"
done
for i in $(seq 100); do
  ok=1; for d in {devices}; do [ -b $d ] || ok=0; done
  [ $ok = 1 ] && break; sleep 0.1
done
echo "@@@ ready"
cd /tmp
for f in /steps/*.sh; do
  name=$(basename $f .sh); name=${{name#*-}}
  sh $f > /tmp/.step-out 2>&1; rc=$?
  echo "@@@ step $name"; cat /tmp/.step-out
  [ -n "$(tail -c1 /tmp/.step-out)" ] && echo
  echo "@@@ status $name $rc"
done
echo "@@@ end"
poweroff -f
"#
    )
}

/// The shared libraries `ldd` lists for a program, the dynamic loader included.
fn shared_libraries(program: &Path) -> std::io::Result<Vec<PathBuf>> {
    let out = Command::new("ldd").arg(program).output()?;
    if !out.status.success() {
        // A static program ("not a dynamic executable").
        return Ok(Vec::new());
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let path = l.split("=>").last()?.split_whitespace().next()?;
            path.starts_with('/').then(|| PathBuf::from(path))
        })
        .collect())
}

/// The program without its debug information (the release and test builds keep some).
fn stripped(program: &Path) -> std::io::Result<Vec<u8>> {
    let dir = Scratch::new();
    let out = dir.path.join("stripped");
    let ok = Command::new("strip")
        .arg("--strip-debug")
        .arg("-o")
        .arg(&out)
        .arg(program)
        .status()
        .is_ok_and(|s| s.success());
    std::fs::read(if ok { &out } else { program })
}

/// An initramfs: a cpio archive in the "newc" format the kernel unpacks.
#[derive(Default)]
struct Cpio {
    out: Vec<u8>,
    dirs: Vec<String>,
    inode: u32,
}

impl Cpio {
    fn file(&mut self, path: &str, data: &[u8], mode: u32) {
        // Parent directories first, each once.
        let mut parent = String::new();
        for part in path.split('/').collect::<Vec<_>>().split_last().unwrap().1 {
            if !parent.is_empty() {
                parent.push('/');
            }
            parent.push_str(part);
            if !self.dirs.contains(&parent) {
                self.dirs.push(parent.clone());
                let p = parent.clone();
                self.entry(&p, &[], 0o040_755);
            }
        }
        self.entry(path, data, 0o100_000 | mode);
    }

    fn entry(&mut self, name: &str, data: &[u8], mode: u32) {
        self.inode += 1;
        let fields = [
            self.inode,
            mode,
            0,
            0,
            1,
            0,
            data.len() as u32,
            0,
            0,
            0,
            0,
            name.len() as u32 + 1,
            0,
        ];
        let _ = write!(self.out, "070701");
        for f in fields {
            let _ = write!(self.out, "{f:08x}");
        }
        self.out.extend_from_slice(name.as_bytes());
        self.out.push(0);
        self.pad();
        self.out.extend_from_slice(data);
        self.pad();
    }

    fn pad(&mut self) {
        while !self.out.len().is_multiple_of(4) {
            self.out.push(0);
        }
    }

    fn finish(mut self) -> Vec<u8> {
        self.entry("TRAILER!!!", &[], 0);
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpio_entries_are_aligned_and_terminated() {
        let mut c = Cpio::default();
        c.file("a/b/c.txt", b"hello", 0o644);
        let out = c.finish();
        assert_eq!(out.len() % 4, 0);
        let text = String::from_utf8_lossy(&out);
        // Two directories, the file, the trailer.
        assert_eq!(text.matches("070701").count(), 4);
        assert!(text.contains("a/b\0") && text.contains("TRAILER!!!"));
    }
}
