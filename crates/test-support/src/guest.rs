//! A small Linux guest under QEMU with emulated drives, for the tests that must talk to a real
//! NVMe or SATA controller: identify, SMART, Format and Sanitize, passthrough.
//!
//! QEMU's software emulation (TCG) needs no KVM. The guest is Debian's own kernel, fetched
//! once with `apt-get download` and unpacked (never installed) into the target directory, and
//! an initramfs made here: busybox, the kernel modules the drives need (with their
//! dependencies read from the modules themselves), the programs under test with their shared
//! libraries, and one shell script per step. The guest boots in about five seconds, runs the
//! steps in order, prints each one's output between markers on its serial console and powers
//! off.
//!
//! ```text
//! use test_support::guest::{Disk, Guest};
//! let Some(run) = Guest::new()
//!     .disk(Disk::nvme("SSDLAB01", 256 << 20))
//!     .program(env!("CARGO_BIN_EXE_ssdlab"))
//!     .step("identify", "ssdlab identify --target /dev/nvme0n1")
//!     .run()
//! else {
//!     return; // skipped: no qemu here (a failure under CI)
//! };
//! assert!(run.step("identify").ok().output.contains("QEMU"));
//! ```

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::{find_tool, install_hint, skip, skip_file};

/// The modules the emulated drives need; their dependencies are added in load order.
const MODULES: &[&str] = &["nvme", "ahci", "sd_mod"];

/// The Debian package that names the current kernel.
const KERNEL_META_PACKAGE: &str = "linux-image-amd64";

/// A drive the guest sees.
#[derive(Clone, Debug)]
pub enum Disk {
    /// QEMU's emulated NVMe controller with one namespace: `/dev/nvme{N}n1`, `/dev/ng{N}n1`.
    Nvme { serial: String, bytes: u64 },
    /// A SATA disk on the machine's AHCI controller: `/dev/sd{a,b,...}`.
    Sata {
        serial: String,
        model: String,
        bytes: u64,
    },
}

impl Disk {
    pub fn nvme(serial: &str, bytes: u64) -> Disk {
        Disk::Nvme {
            serial: serial.into(),
            bytes,
        }
    }

    pub fn sata(serial: &str, model: &str, bytes: u64) -> Disk {
        Disk::Sata {
            serial: serial.into(),
            model: model.into(),
            bytes,
        }
    }
}

/// What to boot and run.
#[derive(Clone, Debug)]
pub struct Guest {
    disks: Vec<Disk>,
    programs: Vec<PathBuf>,
    /// Host tools copied in like programs, found on PATH when the guest runs.
    tools: Vec<String>,
    files: Vec<(String, Vec<u8>)>,
    steps: Vec<(String, String)>,
    memory_mib: u32,
    timeout: Duration,
}

impl Default for Guest {
    fn default() -> Self {
        Guest::new()
    }
}

impl Guest {
    pub fn new() -> Guest {
        Guest {
            disks: Vec::new(),
            programs: Vec::new(),
            tools: Vec::new(),
            files: Vec::new(),
            steps: Vec::new(),
            memory_mib: 1024,
            timeout: Duration::from_secs(300),
        }
    }

    pub fn disk(mut self, disk: Disk) -> Guest {
        self.disks.push(disk);
        self
    }

    /// A program, copied to `/bin/NAME` with the shared libraries it needs (stripped of
    /// debug information on the way: the initramfs lives in the guest's memory).
    pub fn program(mut self, host_path: impl Into<PathBuf>) -> Guest {
        self.programs.push(host_path.into());
        self
    }

    /// A program of the host's PATH (`nvme`, `fio`, ...), copied in as [`Guest::program`]
    /// does. It is looked up by [`Guest::run`] with everything else the guest needs, so a
    /// host without it skips the test (a failure under CI) instead of panicking.
    pub fn tool(mut self, name: &str) -> Guest {
        self.tools.push(name.into());
        self
    }

    /// A file placed at `guest_path`.
    pub fn file(mut self, guest_path: &str, contents: impl Into<Vec<u8>>) -> Guest {
        self.files.push((guest_path.into(), contents.into()));
        self
    }

    /// A shell command run in the guest (busybox sh, in `/tmp`, a tmpfs), after the steps
    /// before it. Its output and exit status come back as [`Step`] `name`.
    pub fn step(mut self, name: &str, command: &str) -> Guest {
        assert!(
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'),
            "step names are [A-Za-z0-9_-]: {name}"
        );
        self.steps.push((name.into(), command.into()));
        self
    }

    pub fn memory_mib(mut self, mib: u32) -> Guest {
        self.memory_mib = mib;
        self
    }

    pub fn timeout(mut self, timeout: Duration) -> Guest {
        self.timeout = timeout;
        self
    }

    /// Boot the guest and run the steps. `None` when this machine cannot (no QEMU, no
    /// kernel package): the test is skipped, which under CI fails it.
    pub fn run(&self) -> Option<GuestRun> {
        let (qemu, busybox, tools) = self.host_programs()?;
        let kernel = match Kernel::fetch() {
            Ok(k) => k,
            Err(e) => {
                skip(
                    &format!("Debian's kernel package for the guest ({e})"),
                    "apt-get update, so that `apt-get download linux-image-amd64` works",
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
        let needed = ["qemu-system-x86_64", "busybox"]
            .into_iter()
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
        Some((qemu, busybox, paths.collect()))
    }

    fn initramfs(
        &self,
        busybox: &Path,
        kernel: &Kernel,
        tools: &[PathBuf],
        out: &Path,
    ) -> std::io::Result<()> {
        let mut cpio = Cpio::default();
        cpio.file("bin/busybox", &std::fs::read(busybox)?, 0o755);
        let modules = kernel.modules_in_load_order(MODULES)?;
        for m in &modules {
            let name = m.file_name().unwrap().to_string_lossy();
            cpio.file(
                &format!("lib/ssdlab-modules/{name}"),
                &std::fs::read(m)?,
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
        let load: Vec<String> = modules
            .iter()
            .map(|m| m.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
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
for m in {load}; do insmod /lib/ssdlab-modules/$m || echo "@@@ insmod $m failed"; done
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

/// Debian's kernel, unpacked under the target directory.
struct Kernel {
    vmlinuz: PathBuf,
    modules: PathBuf,
}

static FETCH: Mutex<()> = Mutex::new(());

impl Kernel {
    /// The kernel `linux-image-amd64` depends on, downloaded and unpacked once per target
    /// directory (a few seconds; the package is ~70 MB).
    fn fetch() -> Result<Kernel, String> {
        let _guard = FETCH.lock().unwrap_or_else(|e| e.into_inner());
        let cache = skip_file()
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
            .join("guest-kernel");
        if let Some(k) = Kernel::find(&cache) {
            return Ok(k);
        }
        let package = current_kernel_package()?;
        let staging = cache.join(format!("staging-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir_all(&staging).map_err(|e| e.to_string())?;
        let download = Command::new("apt-get")
            .args(["download", &package])
            .current_dir(&staging)
            .output()
            .map_err(|e| format!("apt-get: {e}"))?;
        if !download.status.success() {
            return Err(format!(
                "apt-get download {package} failed: {}",
                String::from_utf8_lossy(&download.stderr).trim()
            ));
        }
        let deb = std::fs::read_dir(&staging)
            .map_err(|e| e.to_string())?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "deb"))
            .ok_or("apt-get download left no .deb")?;
        let unpacked = staging.join("root");
        let x = Command::new("dpkg-deb")
            .arg("-x")
            .arg(&deb)
            .arg(&unpacked)
            .status()
            .map_err(|e| format!("dpkg-deb: {e}"))?;
        if !x.success() {
            return Err(format!("dpkg-deb -x {} failed", deb.display()));
        }
        let _ = std::fs::remove_file(&deb);
        // Renamed into place only once complete: a half-unpacked kernel is never found.
        let done = cache.join(&package);
        let _ = std::fs::remove_dir_all(&done);
        std::fs::rename(&unpacked, &done).map_err(|e| e.to_string())?;
        let _ = std::fs::remove_dir_all(&staging);
        Kernel::find(&cache).ok_or_else(|| format!("{package} holds no vmlinuz"))
    }

    fn find(cache: &Path) -> Option<Kernel> {
        for entry in std::fs::read_dir(cache).ok()?.filter_map(Result::ok) {
            let root = entry.path();
            if !entry
                .file_name()
                .to_string_lossy()
                .starts_with("linux-image-")
            {
                continue;
            }
            let vmlinuz = std::fs::read_dir(root.join("boot"))
                .ok()?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .find(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with("vmlinuz-"))
                })?;
            let version = vmlinuz.file_name()?.to_string_lossy()["vmlinuz-".len()..].to_string();
            let modules = root.join("lib/modules").join(version).join("kernel");
            if modules.is_dir() {
                return Some(Kernel { vmlinuz, modules });
            }
        }
        None
    }

    /// `wanted` and every module they depend on, dependencies first.
    fn modules_in_load_order(&self, wanted: &[&str]) -> std::io::Result<Vec<PathBuf>> {
        let mut all = Vec::new();
        collect_modules(&self.modules, &mut all)?;
        let by_name = |name: &str| {
            let name = name.replace('-', "_");
            all.iter().find(|p| module_name(p) == name).cloned()
        };
        let mut order = Vec::new();
        fn visit(
            name: &str,
            by_name: &dyn Fn(&str) -> Option<PathBuf>,
            order: &mut Vec<PathBuf>,
        ) -> std::io::Result<()> {
            let Some(path) = by_name(name) else {
                return Err(std::io::Error::other(format!("no kernel module {name}")));
            };
            if order.contains(&path) {
                return Ok(());
            }
            let info = std::fs::read(&path)?;
            for dep in modinfo(&info, "depends")
                .split(',')
                .chain(softdeps_before(&modinfo(&info, "softdep")))
                .filter(|d| !d.is_empty())
            {
                // A soft dependency may name an alias rather than a file; only files count.
                if by_name(dep).is_some() {
                    visit(dep, by_name, order)?;
                }
            }
            order.push(path);
            Ok(())
        }
        for name in wanted {
            visit(name, &by_name, &mut order)?;
        }
        Ok(order)
    }
}

/// `linux-image-6.1.0-NN-amd64`: what the meta package depends on.
fn current_kernel_package() -> Result<String, String> {
    let out = Command::new("apt-cache")
        .args(["depends", KERNEL_META_PACKAGE])
        .output()
        .map_err(|e| format!("apt-cache: {e}"))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("Depends: "))
        .find(|p| p.starts_with("linux-image-"))
        .map(str::to_string)
        .ok_or_else(|| format!("apt-cache knows no {KERNEL_META_PACKAGE}"))
}

fn collect_modules(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_modules(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "ko") {
            out.push(path);
        }
    }
    Ok(())
}

fn module_name(path: &Path) -> String {
    path.file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .replace('-', "_")
}

/// A `key=value` of a module's `.modinfo` section (NUL-separated strings).
fn modinfo(module: &[u8], key: &str) -> String {
    let needle = format!("\0{key}=");
    module
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())
        .map(|at| {
            let value = &module[at + needle.len()..];
            let end = value.iter().position(|&b| b == 0).unwrap_or(value.len());
            String::from_utf8_lossy(&value[..end]).into_owned()
        })
        .unwrap_or_default()
}

/// The `pre:` modules of a `softdep` value (`pre: a b post: c`).
fn softdeps_before(softdep: &str) -> Vec<&str> {
    let mut pre = false;
    let mut out = Vec::new();
    for word in softdep.split_whitespace() {
        match word {
            "pre:" => pre = true,
            "post:" => pre = false,
            w if pre => out.push(w),
            _ => {}
        }
    }
    out
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

/// A temporary directory, removed when dropped.
struct Scratch {
    path: PathBuf,
}

impl Scratch {
    fn new() -> Scratch {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let path = std::env::temp_dir().join(format!(
            "ssdlab-guest-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path).expect("a temporary directory");
        Scratch { path }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
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
    fn steps_are_parsed_from_the_console() {
        let console = "SeaBIOS\n@@@ ready\n@@@ step one\nhello\r\n@@@ status one 0\n\
                       [ 1.0] nvme nvme0: pci\n@@@ step two\n@@@ status two 3\n@@@ end\n";
        let run = GuestRun::parse(console, Duration::ZERO);
        assert!(run.finished);
        assert_eq!(run.step("one").output, "hello\n");
        assert_eq!(run.step("one").ok().status, 0);
        assert_eq!(run.step("two").status, 3);
    }

    #[test]
    fn modinfo_and_softdeps() {
        let info = b"\x7fELF...\0license=GPL\0softdep=pre: crct10dif\0depends=crct10dif_common\0";
        assert_eq!(modinfo(info, "depends"), "crct10dif_common");
        assert_eq!(
            softdeps_before(&modinfo(info, "softdep")),
            vec!["crct10dif"]
        );
        assert_eq!(modinfo(info, "vermagic"), "");
    }

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
