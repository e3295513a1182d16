//! The guest's kernel: Debian's own package, fetched once with `apt-get download` and
//! unpacked (never installed), and the modules the drives need in load order.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use crate::skip_file;

/// The Debian package that names the current kernel.
const KERNEL_META_PACKAGE: &str = "linux-image-amd64";

/// Debian's kernel, unpacked under the target directory.
pub(super) struct Kernel {
    pub(super) vmlinuz: PathBuf,
    modules: PathBuf,
}

static FETCH: Mutex<()> = Mutex::new(());

impl Kernel {
    /// The kernel `linux-image-amd64` depends on, downloaded and unpacked once per target
    /// directory (a few seconds; the package is ~70 MB).
    pub(super) fn fetch() -> Result<Kernel, String> {
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
}
