//! The guest's kernel: Debian's own package, fetched once with `apt-get download` and
//! unpacked (never installed), and the modules the drives need in load order.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use crate::skip_file;

/// The Debian package that names the current kernel.
const KERNEL_META_PACKAGE: &str = "linux-image-amd64";

/// Which of Debian's kernels the guest boots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GuestKernel {
    /// The host release's own kernel, from the host's package lists.
    #[default]
    Release,
    /// The host release's backports kernel (`CODENAME-backports`), fetched with package
    /// lists of its own so the host's apt is never touched: bookworm's 6.1 is built without
    /// ublk (`CONFIG_BLK_DEV_UBLK`), its 6.12 backport has `ublk_drv` as a module.
    Backports,
}

/// Debian's kernel, unpacked under the target directory.
pub(super) struct Kernel {
    pub(super) vmlinuz: PathBuf,
    modules: PathBuf,
}

static FETCH: Mutex<()> = Mutex::new(());

/// Why Debian's kernel could not be fetched and unpacked: a step's own words (apt's
/// output, an OS error), which vary too much for variants.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(super) struct KernelError(String);

impl From<String> for KernelError {
    fn from(message: String) -> KernelError {
        KernelError(message)
    }
}

impl From<&str> for KernelError {
    fn from(message: &str) -> KernelError {
        KernelError(message.to_string())
    }
}

impl Kernel {
    /// The kernel `linux-image-amd64` depends on, downloaded and unpacked once per target
    /// directory (a few seconds; the package is ~70-110 MB).
    pub(super) fn fetch(which: GuestKernel) -> Result<Kernel, KernelError> {
        let _guard = FETCH.lock().unwrap_or_else(|e| e.into_inner());
        let cache = skip_file()
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
            .join(match which {
                GuestKernel::Release => "guest-kernel",
                GuestKernel::Backports => "guest-kernel-backports",
            });
        if let Some(k) = Kernel::find(&cache) {
            return Ok(k);
        }
        let staging = cache.join(format!("staging-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir_all(&staging).map_err(|e| e.to_string())?;
        let apt = match which {
            GuestKernel::Release => Apt::host(),
            GuestKernel::Backports => Apt::backports(&staging.join("apt"))?,
        };
        let package = apt.current_kernel_package()?;
        let download = apt
            .command("apt-get")
            .args(["download", &package])
            .current_dir(&staging)
            .output()
            .map_err(|e| format!("apt-get: {e}"))?;
        if !download.status.success() {
            return Err(format!(
                "apt-get download {package} failed: {}",
                String::from_utf8_lossy(&download.stderr).trim()
            )
            .into());
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
            return Err(format!("dpkg-deb -x {} failed", deb.display()).into());
        }
        let _ = std::fs::remove_file(&deb);
        // Renamed into place only once complete: a half-unpacked kernel is never found.
        let done = cache.join(&package);
        let _ = std::fs::remove_dir_all(&done);
        std::fs::rename(&unpacked, &done).map_err(|e| e.to_string())?;
        let _ = std::fs::remove_dir_all(&staging);
        Kernel::find(&cache).ok_or_else(|| format!("{package} holds no vmlinuz").into())
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
    pub(super) fn modules_in_load_order(&self, wanted: &[&str]) -> std::io::Result<Vec<PathBuf>> {
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
            let info = module_bytes(&path)?;
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

/// How apt is run: with the host's package lists, or with lists of its own.
struct Apt {
    options: Vec<String>,
}

impl Apt {
    fn host() -> Apt {
        Apt {
            options: Vec::new(),
        }
    }

    /// apt with one source, the host release's backports, and its lists, cache and (empty)
    /// package status under `dir`: no root needed, nothing of the host's changed.
    fn backports(dir: &Path) -> Result<Apt, KernelError> {
        let codename = std::fs::read_to_string("/etc/os-release")
            .ok()
            .and_then(|text| {
                text.lines()
                    .find_map(|l| l.strip_prefix("VERSION_CODENAME="))
                    .map(|c| c.trim_matches('"').to_string())
            })
            .filter(|c| !c.is_empty())
            .ok_or("/etc/os-release names no Debian release (VERSION_CODENAME)")?;
        for sub in ["lists/partial", "cache/archives/partial"] {
            std::fs::create_dir_all(dir.join(sub)).map_err(|e| e.to_string())?;
        }
        let sources = dir.join("sources.list");
        std::fs::write(
            &sources,
            format!(
                "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] \
                 http://deb.debian.org/debian {codename}-backports main\n"
            ),
        )
        .map_err(|e| e.to_string())?;
        let d = dir.display();
        let apt = Apt {
            options: [
                format!("Dir::Etc::SourceList={}", sources.display()),
                "Dir::Etc::SourceParts=/nonexistent".into(),
                format!("Dir::State::Lists={d}/lists"),
                format!("Dir::Cache={d}/cache"),
                "Dir::State::status=/dev/null".into(),
                "Debug::NoLocking=1".into(),
            ]
            .into_iter()
            .flat_map(|o| ["-o".to_string(), o])
            .collect(),
        };
        let update = apt
            .command("apt-get")
            .args(["-q", "update"])
            .output()
            .map_err(|e| format!("apt-get: {e}"))?;
        if !update.status.success() {
            return Err(format!(
                "apt-get update of {codename}-backports failed: {}",
                String::from_utf8_lossy(&update.stderr).trim()
            )
            .into());
        }
        Ok(apt)
    }

    fn command(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.args(&self.options);
        cmd
    }

    /// `linux-image-6.1.0-NN-amd64`: what the meta package depends on.
    fn current_kernel_package(&self) -> Result<String, KernelError> {
        let out = self
            .command("apt-cache")
            .args(["depends", KERNEL_META_PACKAGE])
            .output()
            .map_err(|e| format!("apt-cache: {e}"))?;
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.trim().strip_prefix("Depends: "))
            .find(|p| p.starts_with("linux-image-"))
            .map(str::to_string)
            .ok_or_else(|| format!("apt-cache knows no {KERNEL_META_PACKAGE}").into())
    }
}

fn collect_modules(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect_modules(&path, out)?;
        } else if module_file(&path).is_some() {
            out.push(path);
        }
    }
    Ok(())
}

/// The module a file holds: `nvme` for `nvme.ko`, or for `nvme.ko.xz` (newer kernels
/// compress their modules), and whether it is compressed.
fn module_file(path: &Path) -> Option<(String, bool)> {
    let file = path.file_name()?.to_str()?;
    let (stem, xz) = match file.strip_suffix(".xz") {
        Some(stem) => (stem, true),
        None => (file, false),
    };
    Some((stem.strip_suffix(".ko")?.replace('-', "_"), xz))
}

pub(super) fn module_name(path: &Path) -> String {
    module_file(path).map(|(name, _)| name).unwrap_or_default()
}

/// A module as the kernel loads it: decompressed with `xz` when it is compressed (busybox's
/// insmod hands the file to the kernel as it is).
pub(super) fn module_bytes(path: &Path) -> std::io::Result<Vec<u8>> {
    if !module_file(path).is_some_and(|(_, xz)| xz) {
        return std::fs::read(path);
    }
    let out = Command::new("xz")
        .arg("-dc")
        .arg(path)
        .output()
        .map_err(|e| std::io::Error::other(format!("xz (apt-get install xz-utils): {e}")))?;
    if !out.status.success() {
        return Err(std::io::Error::other(format!(
            "xz -dc {}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out.stdout)
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn module_names_with_and_without_compression() {
        assert_eq!(module_name(Path::new("a/sd_mod.ko")), "sd_mod");
        assert_eq!(module_name(Path::new("a/ublk-drv.ko.xz")), "ublk_drv");
        assert_eq!(module_file(Path::new("a/modules.dep")), None);
    }
}
