//! Files a run writes besides its results directory (`--json`, `--iolog`, `--hist-log`),
//! checked before anything touches the target: a bad path found after an hour's fill loses
//! the hour.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::RunError;

/// Whether `--flag path` can be created: its directory exists and is writable, and the path
/// is not a directory.
pub fn check_creatable(flag: &str, path: &Path) -> Result<(), RunError> {
    let shown = path.display();
    if path.is_dir() {
        return Err(RunError::OutputPath(format!(
            "--{flag} {shown} is a directory: give the path of a file to write (in it, or elsewhere)"
        )));
    }
    let mut parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // `--json` may sit in the results directory the run makes (`--out DIR --json
    // DIR/r.json`): its nearest existing ancestor is what must be writable.
    if flag == "json" {
        while !parent.exists() {
            parent = match parent.parent() {
                Some(p) if !p.as_os_str().is_empty() => p,
                _ => Path::new("."),
            };
        }
    }
    if !parent.is_dir() {
        return Err(RunError::OutputPath(format!(
            "--{flag} {shown}: the directory {} does not exist: create it, or give a path in one \
         that does",
            parent.display()
        )));
    }
    if !writable(parent) {
        return Err(RunError::OutputPath(format!(
            "--{flag} {shown}: the directory {} is not writable: give a path in one you can write",
            parent.display()
        )));
    }
    Ok(())
}

/// Whether this process may create files in `dir` (read-only filesystems included).
fn writable(dir: &Path) -> bool {
    let Ok(c) = CString::new(dir.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a valid NUL-terminated path; access(2) only reads it.
    unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_path_must_be_a_file_in_a_writable_directory() {
        let dir = tempfile::tempdir().unwrap();
        assert!(check_creatable("json", &dir.path().join("r.json")).is_ok());
        let e = check_creatable("json", dir.path()).unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
        let missing = dir.path().join("no/such/r.json");
        let e = check_creatable("hist-log", &missing)
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not exist"), "{e}");
        assert!(check_creatable("iolog", Path::new("bare-name.log")).is_ok());
    }
}
