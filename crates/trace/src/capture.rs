//! Recording a trace of a live device with blktrace, then converting it to the native format.
//! Kernel tracing needs root and debugfs; where it is not permitted, say so plainly.
//!
//! blktrace writes to a pipe (`-o -`), which it drains every 50 ms, and the stream is split
//! into the per-CPU files its file output would have made. Its first event is the kernel's
//! note that tracing started: from then on no IO is missed, and the caller is told so.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::{convert, ConvertSummary, Format, ReadOptions, TraceError};

/// Run `blktrace` on `device` for `seconds`, or until `stop` is set (Ctrl-C), then convert what
/// it recorded to `output`. `started` is called once tracing runs.
pub fn record(
    device: &Path,
    seconds: u64,
    output: &Path,
    format: Format,
    stop: &AtomicBool,
    started: impl FnOnce(),
) -> Result<ConvertSummary, TraceError> {
    let work = std::env::temp_dir().join(format!("ssdlab-capture-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| TraceError::io(&work, e))?;
    let result = capture_into(device, seconds, &work, stop, started).and_then(|base| {
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

fn capture_into(
    device: &Path,
    seconds: u64,
    work: &Path,
    stop: &AtomicBool,
    started: impl FnOnce(),
) -> Result<PathBuf, TraceError> {
    let mut child = Command::new("blktrace")
        .arg("-d")
        .arg(device)
        .args(["-w", &seconds.to_string(), "-o", "-"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            TraceError::Format(format!(
                "cannot run blktrace ({e}): install it (apt-get install blktrace) and run as root"
            ))
        })?;
    let events = child.stdout.take().expect("piped");
    let mut errors = child.stderr.take().expect("piped");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = errors.read_to_string(&mut text);
        text
    });
    let pid = child.id() as libc::pid_t;
    let ended = AtomicBool::new(false);
    let split = std::thread::scope(|scope| {
        // Stopping ends blktrace as Ctrl-C does: it stops tracing and writes out what it has.
        scope.spawn(|| {
            while !ended.load(Ordering::Relaxed) {
                if stop.load(Ordering::Relaxed) {
                    // SAFETY: a signal to our own child, not yet reaped (`ended` is set first).
                    unsafe { libc::kill(pid, libc::SIGINT) };
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        let mut started = Some(started);
        let split = crate::blktrace::split_by_cpu(events, work, "capture", || {
            if let Some(started) = started.take() {
                started();
            }
        });
        ended.store(true, Ordering::Relaxed);
        split
    });
    if split.is_err() {
        // SAFETY: as above; blktrace is still ours to end.
        unsafe { libc::kill(pid, libc::SIGINT) };
    }
    let status = child
        .wait()
        .map_err(|e| TraceError::io(Path::new("blktrace"), e))?;
    let why = errors.join().unwrap_or_default();
    let events = split?;
    if !status.success() || events == 0 {
        let why = match why.trim() {
            "" => "it recorded nothing".to_string(),
            why => why.to_string(),
        };
        return Err(TraceError::Format(format!(
            "blktrace could not trace {}: {why}. Kernel block tracing needs root, debugfs mounted \
             on /sys/kernel/debug and a kernel that permits it (containers and some VMs do not); \
             record on a machine that allows it and use `ssdlab trace convert` on its files.",
            device.display()
        )));
    }
    Ok(work.join("capture"))
}
