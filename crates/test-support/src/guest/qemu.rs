//! Booting the guest under QEMU and reading back what its steps printed.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::kernel::{GuestKernel, Kernel};
use super::{Disk, Guest, Scratch};
use crate::{find_tool, install_hint, skip};

impl Guest {
    /// Boot the guest and run the steps. `None` when this machine cannot (no QEMU, no
    /// kernel package): the test is skipped, which under CI fails it.
    pub fn run(&self) -> Option<GuestRun> {
        let (qemu, busybox, tools) = self.host_programs()?;
        let kernel = match Kernel::fetch(self.kernel) {
            Ok(k) => k,
            Err(e) => {
                skip(
                    &format!("Debian's kernel package for the guest ({e})"),
                    "apt-get update, so that `apt-get download linux-image-amd64` works \
                     (for the backports kernel: deb.debian.org reachable, and `xz`)",
                );
                return None;
            }
        };
        let work = Scratch::new();
        let initrd = work.path.join("initrd.cpio");
        self.initramfs(&busybox, &kernel, &tools, &initrd)
            .unwrap_or_else(|e| panic!("making the guest's initramfs: {e}"));
        let mut args: Vec<String> = vec![
            "-machine".into(),
            "q35".into(),
            "-accel".into(),
            "tcg".into(),
            "-m".into(),
            self.memory_mib.to_string(),
            "-nodefaults".into(),
            "-display".into(),
            "none".into(),
            "-serial".into(),
            "stdio".into(),
            "-no-reboot".into(),
            "-kernel".into(),
            kernel.vmlinuz.display().to_string(),
            "-initrd".into(),
            initrd.display().to_string(),
            "-append".into(),
            "console=ttyS0 loglevel=1 panic=-1".into(),
        ];
        let mut sata = 0;
        for (i, disk) in self.disks.iter().enumerate() {
            let image = work.path.join(format!("disk{i}.img"));
            let bytes = match disk {
                Disk::Nvme { bytes, .. } | Disk::Sata { bytes, .. } => *bytes,
            };
            std::fs::File::create(&image)
                .and_then(|f| f.set_len(bytes))
                .unwrap_or_else(|e| panic!("creating {}: {e}", image.display()));
            args.push("-drive".into());
            args.push(format!(
                "file={},if=none,id=d{i},format=raw,discard=unmap",
                image.display()
            ));
            args.push("-device".into());
            args.push(match disk {
                Disk::Nvme { serial, .. } => format!("nvme,serial={serial},drive=d{i}"),
                Disk::Sata { serial, model, .. } => {
                    sata += 1;
                    // q35's built-in AHCI controller has six ports, ide.0 .. ide.5.
                    format!(
                        "ide-hd,drive=d{i},bus=ide.{},serial={serial},model={model}",
                        sata - 1
                    )
                }
            });
        }
        let started = Instant::now();
        // QEMU 7.2's NVMe controller (Debian 12's) misses a memory barrier in its shadow
        // doorbells: with the guest's CPU thread and QEMU's IO thread on two host CPUs, a
        // submission is now and then never seen, and the guest's driver times it out 30 s
        // later (measured: 9 of 18 two-second passthrough runs). On one host CPU the two
        // threads never run at once and it cannot happen (0 of 30).
        let mut cmd = Command::new("taskset");
        cmd.arg("-c")
            .arg(one_cpu().to_string())
            .arg(qemu)
            .args(&args);
        let console = run_with_timeout(&mut cmd, self.timeout)
            .unwrap_or_else(|e| panic!("running QEMU: {e}"));
        let run = GuestRun::parse(&console, started.elapsed());
        assert!(
            run.finished,
            "the guest did not finish its steps within {:?}; its console:\n{console}",
            self.timeout
        );
        Some(run)
    }

    /// QEMU, busybox and the host tools asked for, or `None` after one skip naming every
    /// one missing (with the packages that provide them).
    fn host_programs(&self) -> Option<(PathBuf, PathBuf, Vec<PathBuf>)> {
        // The backports kernel's modules are xz-compressed; they are unpacked on the host.
        let for_kernel: &[&str] = match self.kernel {
            GuestKernel::Release => &[],
            GuestKernel::Backports => &["xz"],
        };
        let needed = ["qemu-system-x86_64", "busybox"]
            .into_iter()
            .chain(for_kernel.iter().copied())
            .chain(self.tools.iter().map(String::as_str));
        let (found, missing): (Vec<_>, Vec<_>) = needed
            .map(|name| (name, find_tool(name)))
            .partition(|(_, path)| path.is_some());
        if !missing.is_empty() {
            let names: Vec<String> = missing.iter().map(|(n, _)| format!("`{n}`")).collect();
            let hints: Vec<String> = missing.iter().map(|(n, _)| install_hint(n)).collect();
            skip(&format!("{} on PATH", names.join(", ")), &hints.join("; "));
            return None;
        }
        let mut paths = found.into_iter().filter_map(|(_, path)| path);
        let qemu = paths.next()?;
        let busybox = paths.next()?;
        Some((qemu, busybox, paths.skip(for_kernel.len()).collect()))
    }
}

/// What the guest printed.
#[derive(Clone, Debug)]
pub struct GuestRun {
    /// Everything on the serial console.
    pub console: String,
    pub steps: Vec<Step>,
    /// Whether the guest reached the end of its steps.
    pub finished: bool,
    pub elapsed: Duration,
}

/// One step's output (stdout and stderr) and exit status.
#[derive(Clone, Debug)]
pub struct Step {
    pub name: String,
    pub output: String,
    pub status: i32,
}

impl Step {
    /// The step, which must have succeeded.
    pub fn ok(&self) -> &Step {
        assert_eq!(
            self.status, 0,
            "guest step {} failed (status {}):\n{}",
            self.name, self.status, self.output
        );
        self
    }
}

impl GuestRun {
    fn parse(console: &str, elapsed: Duration) -> GuestRun {
        let mut steps = Vec::new();
        let mut current: Option<(String, String)> = None;
        for line in console.lines() {
            let line = line.trim_end_matches('\r');
            if let Some(name) = line.strip_prefix("@@@ step ") {
                current = Some((name.to_string(), String::new()));
            } else if let Some(rest) = line.strip_prefix("@@@ status ") {
                if let Some((name, output)) = current.take() {
                    let status = rest.rsplit(' ').next().and_then(|s| s.parse().ok());
                    steps.push(Step {
                        name,
                        output,
                        status: status.unwrap_or(-1),
                    });
                }
            } else if let Some((_, output)) = current.as_mut() {
                output.push_str(line);
                output.push('\n');
            }
        }
        GuestRun {
            console: console.to_string(),
            finished: console.lines().any(|l| l.trim_end() == "@@@ end"),
            steps,
            elapsed,
        }
    }

    /// The step named `name` (panics, showing the console, when it did not run).
    pub fn step(&self, name: &str) -> &Step {
        self.steps
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no step {name} in the guest's console:\n{}", self.console))
    }
}

/// A host CPU for the next guest: guests started together get different ones.
fn one_cpu() -> usize {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    (NEXT.fetch_add(1, Ordering::Relaxed) + std::process::id() as usize) % cpus
}

/// Run a command, collecting its stdout, killing it past `timeout`.
fn run_with_timeout(cmd: &mut Command, timeout: Duration) -> std::io::Result<String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let deadline = Instant::now() + timeout;
    while child.try_wait()?.is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.wait();
    let mut out = String::from_utf8_lossy(&reader.join().unwrap_or_default()).into_owned();
    let err = err_reader.join().unwrap_or_default();
    if !err.is_empty() {
        out.push_str("\n[qemu stderr] ");
        out.push_str(&String::from_utf8_lossy(&err));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_parsed_from_the_console() {
        let console = "SeaBIOS\n@@@ ready\n@@@ step one\nhello\r\n@@@ status one 0\n\
                       [ 1.0] nvme nvme0: pci\n@@@ step two\n@@@ status two 3\n@@@ end\n";
        let run = GuestRun::parse(console, Duration::ZERO);
        assert!(run.finished);
        assert_eq!(run.step("one").output, "hello\n");
        assert_eq!(run.step("one").ok().status, 0);
        assert_eq!(run.step("two").status, 3);
    }
}
