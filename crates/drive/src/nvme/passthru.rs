//! NVMe admin commands through the kernel: NVME_IOCTL_ADMIN_CMD on a namespace block device
//! (/dev/nvme0n1), its generic char device (/dev/ng0n1) or the controller (/dev/nvme0).

use std::fmt;
use std::os::fd::{AsRawFd, BorrowedFd};

use crate::error::{ioctl_error, Error, Result};

/// `struct nvme_passthru_cmd` (alias `nvme_admin_cmd`) from <linux/nvme_ioctl.h>: 72 bytes.
/// `struct nvme_uring_cmd`, an IO command through io_uring, has the same layout (its last
/// field is reserved).
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct PassthruCmd {
    pub opcode: u8,
    pub flags: u8,
    pub rsvd1: u16,
    pub nsid: u32,
    pub cdw2: u32,
    pub cdw3: u32,
    pub metadata: u64,
    pub addr: u64,
    pub metadata_len: u32,
    pub data_len: u32,
    pub cdw10: u32,
    pub cdw11: u32,
    pub cdw12: u32,
    pub cdw13: u32,
    pub cdw14: u32,
    pub cdw15: u32,
    pub timeout_ms: u32,
    pub result: u32,
}

impl PassthruCmd {
    /// The command as a big io_uring SQE carries it (`IORING_OP_URING_CMD`'s 80 bytes).
    pub fn uring_cmd_bytes(&self) -> [u8; 80] {
        let mut out = [0u8; 80];
        // SAFETY: a plain-old-data repr(C) struct without padding (72 bytes, asserted below).
        let raw: [u8; 72] = unsafe { std::mem::transmute(*self) };
        out[..72].copy_from_slice(&raw);
        out
    }
}

const _: () = assert!(std::mem::size_of::<PassthruCmd>() == 72);

/// _IO('N', 0x40): the namespace id of a namespace device.
const NVME_IOCTL_ID: libc::c_ulong = 0x4E40;
/// _IOWR('N', 0x41, struct nvme_admin_cmd): dir 3 << 30 | size 72 << 16 | 'N' << 8 | 0x41.
const NVME_IOCTL_ADMIN_CMD: libc::c_ulong = 0xC048_4E41;

pub const OPC_GET_LOG_PAGE: u8 = 0x02;
pub const OPC_IDENTIFY: u8 = 0x06;
pub const OPC_FORMAT_NVM: u8 = 0x80;
pub const OPC_SANITIZE: u8 = 0x84;

/// The broadcast namespace id: "all namespaces" / "the controller" for log pages.
pub const NSID_ALL: u32 = 0xFFFF_FFFF;

/// One admin command: its opcode, namespace, CDW10..15 and timeout (0: the kernel's
/// default admin timeout, 60 s); [`admin`] sets its data buffer.
pub type AdminCommand = PassthruCmd;

/// The status the controller posted (Status Field of the completion queue entry, as the
/// kernel returns it: bits 7:0 SC, 10:8 SCT, 13:12 CRD, 14 More, 15 DNR).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NvmeStatus {
    pub sct: u8,
    pub sc: u8,
    pub do_not_retry: bool,
}

impl NvmeStatus {
    pub fn from_raw(raw: u32) -> Self {
        NvmeStatus {
            sc: (raw & 0xFF) as u8,
            sct: ((raw >> 8) & 0x7) as u8,
            do_not_retry: raw & 0x8000 != 0,
        }
    }

    /// The status's name from the NVMe base specification (2.0, figures 100-104), where known.
    pub fn name(&self) -> &'static str {
        match (self.sct, self.sc) {
            (0, 0x00) => "Successful Completion",
            (0, 0x01) => "Invalid Command Opcode",
            (0, 0x02) => "Invalid Field in Command",
            (0, 0x03) => "Command ID Conflict",
            (0, 0x04) => "Data Transfer Error",
            (0, 0x05) => "Commands Aborted due to Power Loss Notification",
            (0, 0x06) => "Internal Error",
            (0, 0x07) => "Command Abort Requested",
            (0, 0x08) => "Command Aborted due to SQ Deletion",
            (0, 0x0B) => "Invalid Namespace or Format",
            (0, 0x0C) => "Command Sequence Error",
            (0, 0x0F) => "Invalid Use of Controller Memory Buffer",
            (0, 0x15) => "Operation Denied",
            (0, 0x1D) => "Sanitize Failed",
            (0, 0x1E) => "Sanitize In Progress",
            (0, 0x20) => "Namespace is Write Protected",
            (0, 0x21) => "Command Interrupted",
            (0, 0x80) => "LBA Out of Range",
            (0, 0x81) => "Capacity Exceeded",
            (0, 0x82) => "Namespace Not Ready",
            (0, 0x83) => "Reservation Conflict",
            (0, 0x84) => "Format In Progress",
            (1, 0x09) => "Invalid Log Page",
            (1, 0x0A) => "Invalid Format",
            (1, 0x1D) => "Device Self-test In Progress",
            (1, 0x23) => "Sanitize Prohibited While Persistent Memory Region is Enabled",
            (1, 0x80) => "Conflicting Attributes",
            (1, 0x81) => "Invalid Protection Information",
            (1, 0x82) => "Attempted Write to Read Only Range",
            (2, 0x80) => "Write Fault",
            (2, 0x81) => "Unrecovered Read Error",
            (2, 0x86) => "Access Denied",
            (3, _) => "Path Related Status",
            (7, _) => "Vendor Specific",
            _ => "unknown status",
        }
    }
}

impl fmt::Display for NvmeStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (sct {} sc {:#04x})", self.name(), self.sct, self.sc)
    }
}

/// Send one admin command with an optional data buffer read from the drive (`data_in`) or
/// written to it. Returns Dword 0 of the completion.
pub fn admin(
    fd: BorrowedFd<'_>,
    name: &'static str,
    cmd: &AdminCommand,
    data: Option<&mut [u8]>,
) -> Result<u32> {
    let (addr, data_len) = match data {
        Some(buf) => (
            buf.as_mut_ptr() as u64,
            u32::try_from(buf.len()).unwrap_or(u32::MAX),
        ),
        None => (0, 0),
    };
    let mut c = PassthruCmd {
        addr,
        data_len,
        result: 0,
        ..*cmd
    };
    // SAFETY: `c` is a valid nvme_passthru_cmd; `addr` points at `data_len` bytes that stay
    // borrowed (mutably) for the duration of the call.
    let ret = unsafe { libc::ioctl(fd.as_raw_fd(), NVME_IOCTL_ADMIN_CMD as _, &mut c) };
    match ret {
        0 => Ok(c.result),
        r if r < 0 => Err(ioctl_error(name, std::io::Error::last_os_error())),
        status => Err(refused(name, NvmeStatus::from_raw(status as u32))),
    }
}

fn refused(command: &'static str, status: NvmeStatus) -> Error {
    let mut reason = status.to_string();
    match (status.sct, status.sc) {
        (0, 0x01) => reason.push_str(": the drive does not implement this command"),
        (0, 0x1E) => reason.push_str(": wait for the sanitize in progress to finish"),
        (0, 0x84) => reason.push_str(": wait for the format in progress to finish"),
        (0, 0x15) | (2, 0x86) => {
            reason.push_str(": the drive is locked or write protected (TCG Opal/security?)")
        }
        _ => {}
    }
    Error::Refused { command, reason }
}

/// The namespace id behind a namespace device, or None when the ioctl does not apply (a
/// controller char device, or not NVMe at all).
pub fn namespace_id(fd: BorrowedFd<'_>) -> Option<u32> {
    // SAFETY: NVME_IOCTL_ID takes no argument.
    let ret = unsafe { libc::ioctl(fd.as_raw_fd(), NVME_IOCTL_ID as _) };
    (ret > 0).then_some(ret as u32)
}

/// Get Log Page into `buf` (its length must be a multiple of 4).
pub fn get_log_page(
    fd: BorrowedFd<'_>,
    name: &'static str,
    lid: u8,
    nsid: u32,
    buf: &mut [u8],
) -> Result<()> {
    // NUMD is 0-based, in dwords: lower 16 bits in CDW10 31:16, upper in CDW11 15:0.
    let numd = (buf.len() / 4).saturating_sub(1) as u32;
    let cmd = AdminCommand {
        opcode: OPC_GET_LOG_PAGE,
        nsid,
        cdw10: u32::from(lid) | (numd & 0xFFFF) << 16,
        cdw11: numd >> 16,
        ..AdminCommand::default()
    };
    admin(fd, name, &cmd, Some(buf)).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names_the_command_set_and_code() {
        // Invalid Command Opcode, DNR set, as the kernel returns it.
        let s = NvmeStatus::from_raw(0x8001);
        assert_eq!(
            s,
            NvmeStatus {
                sct: 0,
                sc: 1,
                do_not_retry: true
            }
        );
        assert_eq!(s.to_string(), "Invalid Command Opcode (sct 0 sc 0x01)");
        let e = refused("Sanitize", s).to_string();
        assert_eq!(
            e,
            "the drive refused Sanitize: Invalid Command Opcode (sct 0 sc 0x01): the drive does not implement this command"
        );
        assert_eq!(
            NvmeStatus::from_raw(0x10A).to_string(),
            "Invalid Format (sct 1 sc 0x0a)"
        );
    }

    #[test]
    fn ioctl_number_matches_the_header() {
        // _IOWR('N', 0x41, 72 bytes): dir (read|write) << 30 | size << 16 | type << 8 | nr.
        let expected: u64 = 3 << 30 | 72 << 16 | (b'N' as u64) << 8 | 0x41;
        assert_eq!(u64::from(NVME_IOCTL_ADMIN_CMD as u32), expected);
    }
}
