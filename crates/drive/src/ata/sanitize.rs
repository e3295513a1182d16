//! SANITIZE DEVICE (B4h, ACS-3 §7.36): BLOCK ERASE EXT / CRYPTO SCRAMBLE EXT, and SANITIZE
//! STATUS EXT polled while the drive works in the background.

use std::os::fd::BorrowedFd;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::passthru::{ata_command, AtaRegisters, Data, Taskfile};
use crate::error::{Error, Result};
use crate::wait::{wait, Poll};

/// A sanitize operation and its FEATURE code and LBA signature (the ASCII key ACS requires in
/// LBA 31:0 so that no stray command sanitizes a drive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AtaSanitize {
    BlockErase,
    CryptoScramble,
}

impl AtaSanitize {
    fn taskfile(self) -> Taskfile {
        let (feature, key) = match self {
            AtaSanitize::BlockErase => (0x0012, 0x426B_4572), // "BkEr"
            AtaSanitize::CryptoScramble => (0x0011, 0x4372_7970), // "Cryp"
        };
        // COUNT bit 4 (FAILURE MODE) = 0: a failed sanitize can only be cleared by a
        // successful one.
        Taskfile {
            command: 0xB4,
            feature,
            count: 0,
            lba: key,
            device: 0x40,
        }
    }
}

/// What SANITIZE STATUS EXT reports.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AtaSanitizeStatus {
    /// COUNT bit 15: the last sanitize completed without error.
    pub completed_ok: bool,
    /// COUNT bit 14.
    pub in_progress: bool,
    /// COUNT bit 13: sanitize is frozen (SANITIZE FREEZE LOCK).
    pub frozen: bool,
    /// LBA 15:0 / 65536.
    pub progress: f64,
    /// The translator returned fixed-format sense, which drops COUNT 15:8: the three flags
    /// above are then not known, only whether any of them is set.
    pub flags_unknown: bool,
}

impl AtaSanitizeStatus {
    pub fn from_registers(r: &AtaRegisters) -> Self {
        let progress = f64::from(r.lba as u16) / 65536.0;
        if r.upper_lost {
            // Only "some of COUNT 15:8 is set" survives: take it as still running while the
            // progress indicator has not reached its end.
            let running = r.count_upper_nonzero && (r.lba as u16) != 0xFFFF;
            return AtaSanitizeStatus {
                completed_ok: r.count_upper_nonzero && !running,
                in_progress: running,
                frozen: false,
                progress,
                flags_unknown: true,
            };
        }
        AtaSanitizeStatus {
            completed_ok: r.count & 0x8000 != 0,
            in_progress: r.count & 0x4000 != 0,
            frozen: r.count & 0x2000 != 0,
            progress,
            flags_unknown: false,
        }
    }

    fn poll(&self) -> Poll {
        if self.in_progress {
            Poll::Running(self.progress)
        } else if self.completed_ok {
            Poll::Done
        } else {
            Poll::Failed(
                "the sanitize did not complete without error (SANITIZE STATUS EXT): run it again"
                    .into(),
            )
        }
    }
}

/// SANITIZE STATUS EXT (CK_COND set, to get the output registers back).
pub fn sanitize_status(fd: BorrowedFd<'_>) -> Result<AtaSanitizeStatus> {
    const NAME: &str = "SANITIZE STATUS EXT";
    let tf = Taskfile {
        command: 0xB4,
        feature: 0x0000,
        device: 0x40,
        ..Default::default()
    };
    let regs = ata_command(fd, NAME, &tf, Data::None, true, true, 15_000)?;
    let regs = regs.ok_or_else(|| Error::Refused {
        command: NAME,
        reason: "the SCSI translator returned no ATA registers (SAT ATA Status Return)".into(),
    })?;
    Ok(AtaSanitizeStatus::from_registers(&regs))
}

/// Start a sanitize; it runs in the background (poll [`sanitize_status`] or call
/// [`wait_sanitize`]).
pub fn sanitize(fd: BorrowedFd<'_>, op: AtaSanitize) -> Result<()> {
    let status = sanitize_status(fd)?;
    if status.frozen {
        return Err(Error::State(
            "the drive's sanitize is frozen (SANITIZE FREEZE LOCK, usually by the BIOS): suspend and resume the machine or hot-plug the drive, then try again".into(),
        ));
    }
    let name = match op {
        AtaSanitize::BlockErase => "SANITIZE BLOCK ERASE EXT",
        AtaSanitize::CryptoScramble => "SANITIZE CRYPTO SCRAMBLE EXT",
    };
    ata_command(fd, name, &op.taskfile(), Data::None, true, false, 30_000).map(|_| ())
}

/// Poll SANITIZE STATUS EXT each second until the sanitize ends.
pub fn wait_sanitize(
    fd: BorrowedFd<'_>,
    timeout: Duration,
    progress: &mut dyn FnMut(f64),
) -> Result<()> {
    wait(
        "SANITIZE DEVICE",
        timeout,
        Duration::from_secs(1),
        || sanitize_status(fd).map(|s| s.poll()),
        progress,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures() {
        let t = AtaSanitize::BlockErase.taskfile();
        assert_eq!((t.feature, t.lba), (0x12, 0x426B_4572));
        assert_eq!(&(t.lba as u32).to_be_bytes(), b"BkEr");
        let t = AtaSanitize::CryptoScramble.taskfile();
        assert_eq!(&(t.lba as u32).to_be_bytes(), b"Cryp");
    }

    #[test]
    fn status_from_descriptor_registers() {
        let r = AtaRegisters {
            count: 0x4000,
            lba: 0x8000,
            status: 0x50,
            ..Default::default()
        };
        let s = AtaSanitizeStatus::from_registers(&r);
        assert!(s.in_progress && !s.completed_ok && !s.flags_unknown);
        assert_eq!(s.progress, 0.5);
        assert_eq!(s.poll(), Poll::Running(0.5));
        let done = AtaSanitizeStatus::from_registers(&AtaRegisters {
            count: 0x8000,
            lba: 0xFFFF,
            ..r
        });
        assert_eq!(done.poll(), Poll::Done);
        let frozen = AtaSanitizeStatus::from_registers(&AtaRegisters { count: 0x2000, ..r });
        assert!(frozen.frozen);
        assert!(matches!(frozen.poll(), Poll::Failed(_)));
    }

    #[test]
    fn status_from_fixed_format_sense_is_marked_approximate() {
        let r = AtaRegisters {
            lba: 0x4000,
            upper_lost: true,
            count_upper_nonzero: true,
            ..Default::default()
        };
        let s = AtaSanitizeStatus::from_registers(&r);
        assert!(s.flags_unknown && s.in_progress);
        let r = AtaRegisters { lba: 0xFFFF, ..r };
        assert_eq!(AtaSanitizeStatus::from_registers(&r).poll(), Poll::Done);
    }
}
