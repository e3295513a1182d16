//! Recording a trace of a live device with blktrace, then converting it to the native format.
//! Kernel tracing needs root and debugfs; where it is not permitted, say so plainly.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{convert, ConvertSummary, Format, ReadOptions, TraceError};

/// Run `blktrace` on `device` for `seconds`, then convert its per-CPU files to `output`.
pub fn record(
    device: &Path,
    seconds: u64,
    output: &Path,
    format: Format,
) -> Result<ConvertSummary, TraceError> {
    let work = std::env::temp_dir().join(format!("ssdlab-capture-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| TraceError::io(&work, e))?;
    let result = capture_into(device, seconds, &work).and_then(|base| {
        convert(
            &base,
            ReadOptions {
                format: Some(Format::Blktrace),
                skip_bad: false,
            },
            output,
            format,
        )
    });
    let _ = std::fs::remove_dir_all(&work);
    result
}

fn capture_into(device: &Path, seconds: u64, work: &Path) -> Result<PathBuf, TraceError> {
    let out = Command::new("blktrace")
        .arg("-d")
        .arg(device)
        .args(["-w", &seconds.to_string(), "-o", "capture", "-D"])
        .arg(work)
        .output()
        .map_err(|e| {
            TraceError::Format(format!(
                "cannot run blktrace ({e}): install it (apt-get install blktrace) and run as root"
            ))
        })?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(TraceError::Format(format!(
            "blktrace could not trace {}: {why}. Kernel block tracing needs root, debugfs mounted \
             on /sys/kernel/debug and a kernel that permits it (containers and some VMs do not); \
             record on a machine that allows it and use `ssdlab trace convert` on its files.",
            device.display()
        )));
    }
    Ok(work.join("capture"))
}
