//! Targets: what `--target` names, and a registry of openers keyed by prefix.
//!
//! The engine registers the real targets (block devices, NVMe generic character devices,
//! files); the suite adds `sim:`. A new backend (SPDK, NBD, ...) is one file with an
//! [`OpenFn`] plus one registration.

use std::fs::File;
use std::io;
use std::path::Path;

use crate::device::{Device, Geometry};
use crate::identity::Identity;
use crate::passthrough;
use crate::polling::Polling;
use crate::safety::SafetyError;
use crate::sync::SyncQueue;
use crate::target_kind::TargetKind;
use crate::units::format_size;
use crate::uring::UringQueue;
use crate::wall::WallDevice;

pub(crate) mod block;
pub mod file;
mod footprint;
mod lock;
pub(crate) mod mark;

pub use footprint::{loop_devices_over, Footprint};

/// Opens the target a spec names; gets the whole spec, prefix included.
pub type OpenFn = fn(spec: &str, req: &OpenRequest) -> Result<Box<dyn Device>, TargetError>;

/// Where the target a spec names writes, without opening it.
pub type LocateFn = fn(spec: &str) -> Result<Footprint, TargetError>;

/// One kind of target.
#[derive(Clone, Copy)]
pub struct Opener {
    /// What a spec of this kind starts with; the longest matching prefix wins.
    pub prefix: &'static str,
    pub kind: TargetKind,
    /// The spec's form, for help and errors.
    pub syntax: &'static str,
    pub open: OpenFn,
    /// `None`: a spec of this kind is a drive of its own (a simulated one), shared with no
    /// other spec.
    pub locate: Option<LocateFn>,
}

/// Every kind of target a program knows.
#[derive(Clone)]
pub struct Registry {
    openers: Vec<Opener>,
}

impl Registry {
    /// The targets the engine opens itself: block devices, NVMe generic character devices
    /// and files.
    pub fn real() -> Registry {
        Registry {
            openers: vec![
                Opener {
                    prefix: "/dev/",
                    kind: TargetKind::Block,
                    syntax: "a block device (/dev/sdX, /dev/nvme0n1)",
                    open: block::open,
                    locate: Some(locate_device),
                },
                Opener {
                    prefix: "/dev/ng",
                    kind: TargetKind::NvmeGeneric,
                    syntax: "an NVMe generic device (/dev/ng0n1, NVMe passthrough)",
                    open: passthrough::open,
                    locate: Some(locate_device),
                },
                Opener {
                    prefix: "file:",
                    kind: TargetKind::File,
                    syntax: "file:PATH[:SIZE]",
                    open: file::open,
                    locate: Some(file::locate),
                },
            ],
        }
    }

    pub fn register(&mut self, opener: Opener) {
        self.openers.push(opener);
    }

    /// The opener of `spec`: the one with the longest prefix it starts with.
    pub fn find(&self, spec: &str) -> Result<&Opener, TargetError> {
        self.openers
            .iter()
            .filter(|o| spec.starts_with(o.prefix) && spec.len() > o.prefix.len())
            .max_by_key(|o| o.prefix.len())
            .ok_or_else(|| TargetError::Unknown {
                spec: spec.to_string(),
                syntaxes: self.syntaxes(),
            })
    }

    pub fn open(&self, spec: &str, req: &OpenRequest) -> Result<Box<dyn Device>, TargetError> {
        (self.find(spec)?.open)(spec, req)
    }

    /// Where `spec` writes: two specs whose footprints meet are one drive.
    pub fn footprint(&self, spec: &str) -> Result<Footprint, TargetError> {
        match self.find(spec)?.locate {
            Some(locate) => locate(spec),
            None => Ok(Footprint::own(spec)),
        }
    }

    /// "a block device (...), file:PATH[:SIZE] or sim:PRESET[,key=value...]".
    pub fn syntaxes(&self) -> String {
        let all: Vec<&str> = self.openers.iter().map(|o| o.syntax).collect();
        match all.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => "nothing".into(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("'{spec}' is not a target: use {syntaxes}")]
    Unknown { spec: String, syntaxes: String },
    #[error("bad size in '{spec}': {reason}")]
    Size {
        spec: String,
        reason: file::FileSizeError,
    },
    #[error("{path} does not exist; give a size to create it, e.g. file:{path}:4G")]
    FileMissingSize { path: String },
    #[error(
        "{path} is {actual} bytes, smaller than one 4 KiB block: give a size, e.g. file:{path}:4G"
    )]
    FileTooSmall { path: String, actual: u64 },
    /// The OS error is in the message, not the source chain: `{:#}` would print it twice.
    #[error("{path}: {error}")]
    Io { path: String, error: io::Error },
    #[error(
        "{path}: a {size} target needs {needed} more space, but its filesystem has only {free} \
         free: give a smaller SIZE (at most {most}: file:{path}:{most_spec}) or a path on a \
         filesystem with room",
        size = format_size(*capacity),
        needed = format_size(*needed),
        free = format_size(*free),
        most = format_size(*most),
        most_spec = size_spec(*most)
    )]
    NoSpace {
        path: String,
        capacity: u64,
        needed: u64,
        free: u64,
        /// The largest target that fits: what the file holds already plus the free space.
        most: u64,
    },
    #[error("{path} is read-only (a read-only loop device, a write-protected drive or a read-only mapping): a write test cannot run on it; use a writable device, or a test that only reads (run custom --read-pct 100 --no-prefill)")]
    ReadOnly { path: String },
    #[error("{0} is not a block device; for a regular file use file:{0}")]
    NotBlock(String),
    #[error("{path} is opened exclusively by another program (mounted, or in use by LVM/md or another ssdlab)")]
    Busy { path: String },
    #[error("{path} is locked by another run or program{holder}: one run at a time on a target, or each measures the other; wait for it to end, or give another file")]
    Locked { path: String, holder: String },
    #[error(transparent)]
    Safety(#[from] SafetyError),
    #[error("{0}")]
    Open(String),
    #[error("{path}: {reason}")]
    Passthrough { path: String, reason: String },
}

impl TargetError {
    /// What makes an OS error about the target shown as `path` a target error.
    pub(crate) fn io_at(path: &str) -> impl Fn(io::Error) -> TargetError + Copy + '_ {
        move |error| TargetError::Io {
            path: path.to_string(),
            error,
        }
    }
}

/// A device path: the device it resolves to.
fn locate_device(spec: &str) -> Result<Footprint, TargetError> {
    Ok(Footprint::of_path(Path::new(spec)))
}

/// A size as a target spec takes it: whole MiB (rounded down) where possible.
fn size_spec(bytes: u64) -> String {
    if bytes >= 1 << 20 {
        format!("{}M", bytes >> 20)
    } else {
        format!("{}K", bytes >> 10)
    }
}

/// Which backend drives a real target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Backend {
    /// io_uring, or the sync backend where io_uring is unavailable.
    #[default]
    Auto,
    Uring,
    Sync,
    /// NVMe commands through io_uring passthrough on the namespace's generic character
    /// device (`/dev/ngXnY`), as fio's io_uring_cmd engine issues them.
    UringCmd,
}

impl Backend {
    pub fn parse(text: &str) -> Result<Backend, UnknownBackend> {
        match text {
            "auto" => Ok(Backend::Auto),
            "io_uring" | "uring" => Ok(Backend::Uring),
            "sync" | "psync" => Ok(Backend::Sync),
            "io_uring-cmd" | "io_uring_cmd" | "uring-cmd" => Ok(Backend::UringCmd),
            other => Err(UnknownBackend(other.to_string())),
        }
    }
}

/// A backend [`Backend::parse`] does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown backend '{0}': use auto, io_uring, io_uring-cmd or sync")]
pub struct UnknownBackend(pub String);

#[derive(Clone, Debug, Default)]
pub struct OpenRequest {
    /// Whether the test writes (and so must pass the safety checks on a block device).
    pub write: bool,
    pub backend: Backend,
    /// The device (or file behind a loop device) the user named with `--destroy-data`.
    pub destroy_data: Option<String>,
    /// Polled completions or submissions (io_uring backends only).
    pub polling: Polling,
}

/// An opened file or block device on the backend the request asks for.
fn on_backend(
    (file, is_block, geometry, identity): (File, bool, Geometry, Identity),
    req: &OpenRequest,
) -> Result<Box<dyn Device>, TargetError> {
    let io_err = TargetError::io_at(&identity.path);
    if req.polling.any() {
        if req.backend == Backend::Sync {
            return Err(TargetError::Open(format!(
                "{}: the sync backend has no io_uring ring for {}: use \
                 --backend io_uring",
                identity.path,
                req.polling.flags()
            )));
        }
        if let Some(why) = req.polling.refused(Path::new(&identity.path), is_block) {
            return Err(TargetError::Open(format!("{}: {why}", identity.path)));
        }
    }
    Ok(match req.backend {
        Backend::UringCmd => {
            return Err(TargetError::Passthrough {
                path: identity.path.clone(),
                reason: "the io_uring-cmd backend issues NVMe commands through an NVMe \
                         namespace's generic character device (/dev/ngXnY), which only NVMe \
                         drives have; use --backend io_uring (the default) here"
                    .into(),
            })
        }
        Backend::Sync => Box::new(WallDevice::new(
            SyncQueue::new(file, is_block),
            identity,
            geometry,
        )),
        Backend::Uring => {
            let queue = UringQueue::new(file, is_block, req.polling).map_err(io_err)?;
            Box::new(WallDevice::new(queue, identity, geometry))
        }
        // Polling asked for: io_uring or nothing.
        Backend::Auto if req.polling.any() => {
            let queue = UringQueue::new(file, is_block, req.polling).map_err(io_err)?;
            Box::new(WallDevice::new(queue, identity, geometry))
        }
        Backend::Auto => {
            // Keep a second handle so the sync backend can take over if io_uring is refused.
            let spare = file.try_clone().map_err(io_err)?;
            match UringQueue::new(file, is_block, req.polling) {
                Ok(queue) => Box::new(WallDevice::new(queue, identity, geometry)),
                Err(_) => Box::new(WallDevice::new(
                    SyncQueue::new(spare, is_block),
                    identity,
                    geometry,
                )),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_find_their_opener() {
        let r = Registry::real();
        assert_eq!(r.find("/dev/sdb").unwrap().kind, TargetKind::Block);
        assert_eq!(r.find("/dev/ng0n1").unwrap().kind, TargetKind::NvmeGeneric);
        assert_eq!(r.find("file:/tmp/x.img:4G").unwrap().kind, TargetKind::File);
        let e = r.find("/tmp/x.img").err().unwrap().to_string();
        assert!(e.contains("file:PATH"), "{e}");
        assert!(r.find("file:").is_err(), "a prefix alone names nothing");
        assert_eq!(
            file::parse("file:/tmp/x.img:4G").unwrap(),
            ("/tmp/x.img".into(), Some(4 << 30))
        );
        assert_eq!(
            file::parse("file:/tmp/x.img").unwrap(),
            ("/tmp/x.img".into(), None)
        );
        let e = file::parse("file:/tmp/x:4Q").unwrap_err().to_string();
        assert!(e.contains("unknown unit"), "{e}");
    }

    #[test]
    fn missing_file_needs_a_size() {
        let dir = tempfile::tempdir().unwrap();
        let spec = format!("file:{}", dir.path().join("nope.img").display());
        let e = Registry::real()
            .open(&spec, &OpenRequest::default())
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("give a size"), "{e}");
    }
}
