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

/// Memory this process may still take: MemAvailable from /proc/meminfo, bounded by a cgroup v2
/// memory limit if one is set. `None` where neither can be read.
pub fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    let mut avail = kib * 1024;
    if let Ok(limit) = std::fs::read_to_string("/sys/fs/cgroup/memory.max") {
        if let Ok(limit) = limit.trim().parse::<u64>() {
            let used = std::fs::read_to_string("/sys/fs/cgroup/memory.current")
                .ok()
                .and_then(|s| s.trim().parse::<u64>().ok())
                .unwrap_or(0);
            avail = avail.min(limit.saturating_sub(used));
        }
    }
    Some(avail)
}
