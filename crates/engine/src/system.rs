//! The test system a result was measured on: CPU, memory, kernel, OS.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SystemInfo {
    pub cpu: String,
    pub cores: usize,
    pub memory_bytes: u64,
    pub kernel: String,
    pub os: String,
    pub hostname: String,
}

impl SystemInfo {
    pub fn probe() -> SystemInfo {
        let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
        let cpu = read("/proc/cpuinfo")
            .lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_else(|| std::env::consts::ARCH.to_string());
        let memory_bytes = read("/proc/meminfo")
            .lines()
            .find(|l| l.starts_with("MemTotal:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
            .map_or(0, |kib| kib * 1024);
        let os = read("/etc/os-release")
            .lines()
            .find_map(|l| l.strip_prefix("PRETTY_NAME="))
            .map(|v| v.trim_matches('"').to_string())
            .unwrap_or_else(|| std::env::consts::OS.to_string());
        SystemInfo {
            cpu,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            memory_bytes,
            kernel: read("/proc/sys/kernel/osrelease").trim().to_string(),
            os,
            hostname: read("/proc/sys/kernel/hostname").trim().to_string(),
        }
    }
}

/// What bounds the memory this process may still take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryLimit {
    /// The machine's MemAvailable (/proc/meminfo).
    Machine,
    /// The process's address-space limit (RLIMIT_AS, `ulimit -v`), less what it maps.
    AddressSpace,
    /// The memory.max of the process's cgroup (v2), less what the cgroup uses.
    Cgroup,
}

impl std::fmt::Display for MemoryLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MemoryLimit::Machine => "the machine's MemAvailable",
            MemoryLimit::AddressSpace => {
                "the address-space limit RLIMIT_AS, ulimit -v, less what the process maps"
            }
            MemoryLimit::Cgroup => "the cgroup's memory.max less what the cgroup uses",
        })
    }
}

/// Memory this process may still take and the limit that sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryBudget {
    pub bytes: u64,
    pub limit: MemoryLimit,
}

impl MemoryBudget {
    /// `bytes` of the machine's available memory, no other limit.
    pub fn machine(bytes: u64) -> MemoryBudget {
        MemoryBudget {
            bytes,
            limit: MemoryLimit::Machine,
        }
    }
}

/// Memory this process may still take: the least of MemAvailable, the address-space limit
/// (RLIMIT_AS) and the cgroup v2 memory limit, with the one that applied. `None` where
/// MemAvailable cannot be read.
pub fn memory_budget() -> Option<MemoryBudget> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let mut budget = MemoryBudget::machine(kib_field(&meminfo, "MemAvailable:")? * 1024);
    let mut bound = |bytes: Option<u64>, limit: MemoryLimit| {
        if let Some(bytes) = bytes.filter(|&b| b < budget.bytes) {
            budget = MemoryBudget { bytes, limit };
        }
    };
    bound(address_space_left(), MemoryLimit::AddressSpace);
    bound(cgroup_left(), MemoryLimit::Cgroup);
    Some(budget)
}

/// Memory this process may still take, in bytes (see [`memory_budget`]).
pub fn available_memory() -> Option<u64> {
    memory_budget().map(|b| b.bytes)
}

/// A `Name:   123 kB` field of /proc/meminfo or /proc/self/status, in KiB.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// The address space RLIMIT_AS leaves this process beyond what it maps now; `None` when
/// unlimited.
fn address_space_left() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0
        || limit.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let mapped = kib_field(&status, "VmSize:").unwrap_or(0) * 1024;
    Some(limit.rlim_cur.saturating_sub(mapped))
}

/// What the memory.max of this process's cgroup v2 leaves beyond its memory.current;
/// `None` without a limit ("max") or cgroup v2.
fn cgroup_left() -> Option<u64> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = own.lines().find_map(|l| l.strip_prefix("0::"))?.trim();
    // Inside a cgroup namespace the process's own cgroup is the mount's root.
    let dir = [format!("/sys/fs/cgroup{path}"), "/sys/fs/cgroup".into()]
        .into_iter()
        .find(|d| std::path::Path::new(d).join("memory.max").exists())?;
    let read = |file: &str| std::fs::read_to_string(format!("{dir}/{file}")).ok();
    // "max": no limit.
    let limit: u64 = read("memory.max")?.trim().parse().ok()?;
    let used = read("memory.current")
        .and_then(|s| s.trim().parse::<u64>().ok())
        .unwrap_or(0);
    Some(limit.saturating_sub(used))
}
