//! What a real drive says and does through its own command set: NVMe admin commands
//! (NVME_IOCTL_ADMIN_CMD) and ATA commands through SCSI ATA PASS-THROUGH (SG_IO).
//!
//! - [`open`] / [`Drive::from_fd`]: detect the interface of a device node (or an fd the
//!   caller already holds, e.g. the engine's O_DIRECT|O_EXCL one); `Ok(None)` for anything
//!   that is not an NVMe or ATA drive (a file, a loop device, virtio).
//! - [`Drive::identify`] -> [`Identify`] (typed, serde, with a printable summary).
//! - [`Drive::health`] -> [`Health`]; [`Health::delta`] gives host / NAND bytes written and
//!   the write amplification between two snapshots.
//! - [`plan`] / [`execute`] (or [`Drive::plan`] / [`Drive::purge`]): sanitize, format or
//!   secure erase, chosen by what the drive supports.
//!
//! Every parser ([`nvme::IdentifyController::parse`], [`nvme::SmartLog::parse`],
//! [`ata::IdentifyDevice::parse`], ...) takes plain bytes, separate from the ioctl that
//! fetched them: they are unit-tested on fixtures built from the specifications and fuzzed
//! (crates/drive/fuzz).

pub mod ata;
mod bytes;
mod error;
mod health;
pub mod identify;
pub mod nvme;
mod purge;
mod wait;
mod write_cache;

use std::fmt;
use std::fs::OpenOptions;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

use serde::{Deserialize, Serialize};

pub use error::{Error, ParseError, Result};
pub use health::{Health, HealthDelta};
pub use identify::Identify;
pub use purge::{execute, plan, Purge, PurgeMethod, PurgeReport, UnknownPurgeMethod};

/// The command set a drive speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Interface {
    Nvme,
    Ata,
}

impl fmt::Display for Interface {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Interface::Nvme => "NVMe",
            Interface::Ata => "ATA",
        })
    }
}

/// What the fd is: NVMe (with its namespace id, None on a controller node), ATA, or None.
/// Errors only when the answer is unknowable without privileges.
pub fn detect(fd: BorrowedFd<'_>) -> Result<Option<(Interface, Option<u32>)>> {
    let file_type = {
        let file = std::fs::File::from(fd.try_clone_to_owned().map_err(|e| Error::Io {
            command: "dup",
            source: e,
        })?);
        file.metadata()
            .map_err(|e| Error::Io {
                command: "fstat",
                source: e,
            })?
            .file_type()
    };
    // Only device nodes can be drives: a regular file or a directory never is, and no
    // ioctl is sent to it.
    if !file_type.is_block_device() && !file_type.is_char_device() {
        return Ok(None);
    }
    if let Some(nsid) = nvme::namespace_id(fd) {
        return Ok(Some((Interface::Nvme, Some(nsid))));
    }
    if file_type.is_char_device() {
        // A controller node (/dev/nvme0) has no namespace id but answers admin commands.
        match nvme::identify_controller(fd) {
            Ok(_) => return Ok(Some((Interface::Nvme, None))),
            Err(e @ Error::NeedsRoot { .. }) => return Err(e),
            Err(_) => {}
        }
    }
    match ata::identify_device(fd) {
        Ok(d) if !d.model.is_empty() || d.sectors != 0 => Ok(Some((Interface::Ata, None))),
        Ok(_) => Ok(None),
        Err(e @ Error::NeedsRoot { .. }) => Err(e),
        Err(_) => Ok(None),
    }
}

/// Whether a block device fd is a partition (sysfs has `partition` for it).
fn is_partition(fd: BorrowedFd<'_>) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(owned) = fd.try_clone_to_owned() else {
        return false;
    };
    let Ok(meta) = std::fs::File::from(owned).metadata() else {
        return false;
    };
    if !meta.file_type().is_block_device() {
        return false;
    }
    let rdev = meta.rdev();
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    Path::new(&format!("/sys/dev/block/{major}:{minor}/partition")).exists()
}

enum Fd<'a> {
    Owned(OwnedFd),
    Borrowed(BorrowedFd<'a>),
}

/// A detected drive over an owned or borrowed fd.
pub struct Drive<'fd> {
    fd: Fd<'fd>,
    interface: Interface,
    nsid: Option<u32>,
}

impl fmt::Debug for Drive<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Drive")
            .field("interface", &self.interface)
            .field("nsid", &self.nsid)
            .finish()
    }
}

/// Open a device node (read-only: passthrough needs privileges, not write access) and
/// detect its interface. `Ok(None)`: not an NVMe or ATA drive.
pub fn open(path: impl AsRef<Path>) -> Result<Option<Drive<'static>>> {
    let path = path.as_ref();
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|source| Error::Open {
            path: path.display().to_string(),
            source,
        })?;
    Drive::from_owned(file.into())
}

impl<'fd> Drive<'fd> {
    /// Use an fd the caller holds (the engine's block device fd).
    pub fn from_fd(fd: BorrowedFd<'fd>) -> Result<Option<Self>> {
        Ok(detect(fd)?.map(|(interface, nsid)| Drive {
            fd: Fd::Borrowed(fd),
            interface,
            nsid,
        }))
    }

    pub fn from_owned(fd: OwnedFd) -> Result<Option<Drive<'static>>> {
        Ok(detect(fd.as_fd())?.map(|(interface, nsid)| Drive {
            fd: Fd::Owned(fd),
            interface,
            nsid,
        }))
    }

    pub fn fd(&self) -> BorrowedFd<'_> {
        match &self.fd {
            Fd::Owned(fd) => fd.as_fd(),
            Fd::Borrowed(fd) => *fd,
        }
    }

    pub fn interface(&self) -> Interface {
        self.interface
    }

    /// The NVMe namespace id of the node (None on a controller node or ATA).
    pub fn nsid(&self) -> Option<u32> {
        self.nsid
    }

    pub fn identify(&self) -> Result<Identify> {
        let fd = self.fd();
        match self.interface {
            Interface::Nvme => {
                let controller = nvme::identify_controller(fd)?;
                let namespace = self
                    .nsid
                    .map(|n| nvme::identify_namespace(fd, n))
                    .transpose()?;
                Ok(Identify::from_nvme(self.nsid, controller, namespace))
            }
            Interface::Ata => Ok(Identify::from_ata(ata::identify_device(fd)?)),
        }
    }

    pub fn health(&self) -> Result<Health> {
        let fd = self.fd();
        match self.interface {
            Interface::Nvme => Ok(Health::from_nvme(nvme::smart_log(fd)?)),
            Interface::Ata => {
                let id = ata::identify_device(fd)?;
                if id.smart_supported && !id.smart_enabled {
                    return Err(Error::State(
                        "SMART is disabled on the drive: enable it (smartctl -s on DEVICE), then try again".into(),
                    ));
                }
                Ok(Health::from_ata(&id.model, ata::smart_data(fd)?))
            }
        }
    }

    /// Whether the node is a partition (/dev/nvme0n1p1, /dev/sda1): drive commands act on
    /// the whole namespace or device all the same, so a purge erases the other partitions
    /// too.
    pub fn is_partition(&self) -> bool {
        is_partition(self.fd())
    }

    /// The purges this drive supports for `method`, best first (see [`plan`]).
    pub fn plan(&self, method: PurgeMethod) -> Result<Vec<Purge>> {
        plan(&self.identify()?, method)
    }

    /// Run one purge (see [`execute`]).
    pub fn purge(&self, purge: Purge, progress: &mut dyn FnMut(f64)) -> Result<PurgeReport> {
        execute(self.fd(), purge, progress)
    }
}
