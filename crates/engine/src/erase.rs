//! A device-level purge through the drive's own commands (NVMe Sanitize or Format NVM, ATA
//! SANITIZE or SECURITY ERASE UNIT), as the SNIA PTS asks before a test from a clean state.

use drive::{Drive, Purge, PurgeMethod};

use crate::device::DeviceError;

/// Erase the whole drive by `method` (`Auto`: the best it supports). `Ok(None)`: the drive
/// has no such command, or only discards were asked for; the caller discards instead.
/// Refuses what would reach beyond the target: a partition (a device-level erase takes the
/// whole drive) or a drive with other namespaces when the command erases them all.
pub fn erase(
    drive: &Drive<'_>,
    method: PurgeMethod,
    progress: &mut dyn FnMut(f64),
) -> Result<Option<String>, DeviceError> {
    if matches!(method, PurgeMethod::Discard | PurgeMethod::None) {
        return Ok(None);
    }
    let refuse = |why: String| {
        if method == PurgeMethod::Auto {
            Ok(None)
        } else {
            Err(DeviceError::Other(why))
        }
    };
    if drive.is_partition() {
        return refuse(
            "a device-level erase of a partition would erase the whole drive: target the \
             whole drive, or use --purge discard"
                .into(),
        );
    }
    let id = drive.identify().map_err(other)?;
    let namespaces = match &id.detail {
        drive::identify::Detail::Nvme { controller, .. } => controller.namespaces,
        _ => 1,
    };
    let mut skipped = Vec::new();
    for purge in drive.plan(method).map_err(other)? {
        match purge {
            Purge::Discard | Purge::None => break,
            p if namespaces > 1 && p.erases_all_namespaces(&id) => {
                skipped.push(format!(
                    "{} would also erase the drive's {} other namespaces",
                    p.name(),
                    namespaces - 1
                ));
            }
            p => {
                let report = drive.purge(p, progress).map_err(other)?;
                return Ok(Some(format!("{} ({:.1} s)", report.method, report.seconds)));
            }
        }
    }
    match skipped.is_empty() {
        true => Ok(None),
        false => refuse(skipped.join("; ")),
    }
}

fn other(e: drive::Error) -> DeviceError {
    DeviceError::Other(e.to_string())
}
