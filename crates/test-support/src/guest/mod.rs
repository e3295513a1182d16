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

mod initramfs;
mod kernel;
mod qemu;

use std::path::PathBuf;
use std::time::Duration;

pub use kernel::GuestKernel;
pub use qemu::{GuestRun, Step};

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
    kernel: GuestKernel,
    /// Kernel modules loaded besides the drives' (with their dependencies).
    modules: Vec<String>,
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
            kernel: GuestKernel::default(),
            modules: Vec::new(),
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

    /// Which kernel to boot (the host release's own unless told).
    pub fn kernel(mut self, kernel: GuestKernel) -> Guest {
        self.kernel = kernel;
        self
    }

    /// A kernel module loaded at boot, before the steps (`ublk_drv`, `brd`, ...), with the
    /// modules it depends on.
    pub fn module(mut self, name: &str) -> Guest {
        self.modules.push(name.into());
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
