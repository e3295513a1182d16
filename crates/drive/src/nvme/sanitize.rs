//! Purging an NVMe drive: Format NVM with Secure Erase Settings, Sanitize, and the Sanitize
//! Status log (LID 81h) that a caller polls while the sanitize runs in the background.

use std::os::fd::BorrowedFd;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::identify::IdentifyNamespace;
use super::passthru::{admin, get_log_page, AdminCommand, NSID_ALL, OPC_FORMAT_NVM, OPC_SANITIZE};
use crate::bytes::{u16_at, u32_at};
use crate::error::{fixed, Error, ParseError, Result};
use crate::wait::{wait, Poll};

pub const SANITIZE_LOG_LEN: usize = 512;
const LID_SANITIZE_STATUS: u8 = 0x81;

/// Sanitize Action (SANACT, CDW10 bits 2:0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SanitizeAction {
    BlockErase,
    Overwrite,
    CryptoErase,
}

impl SanitizeAction {
    fn sanact(self) -> u32 {
        match self {
            SanitizeAction::BlockErase => 2,
            SanitizeAction::Overwrite => 3,
            SanitizeAction::CryptoErase => 4,
        }
    }
}

/// Secure Erase Settings of Format NVM (SES, CDW10 bits 11:9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FormatErase {
    UserData,
    Crypto,
}

/// The CDW10 of a Format NVM that keeps the namespace's LBA format, metadata setting and
/// protection information, and adds the erase.
pub fn format_cdw10(ns: &IdentifyNamespace, erase: FormatErase) -> u32 {
    let lbaf = u32::from(ns.format_index);
    let ses = match erase {
        FormatErase::UserData => 1,
        FormatErase::Crypto => 2,
    };
    (lbaf & 0xF)
        | u32::from(ns.metadata_extended) << 4
        | u32::from(ns.protection_type) << 5
        | u32::from(ns.protection_first) << 8
        | ses << 9
        | ((lbaf >> 4) & 0x3) << 12
}

/// Format NVM namespace `nsid` with an erase, keeping its LBA format. Synchronous: the drive
/// completes the command when the erase is done.
pub fn format_nvm(
    fd: BorrowedFd<'_>,
    nsid: u32,
    ns: &IdentifyNamespace,
    erase: FormatErase,
) -> Result<()> {
    let cmd = AdminCommand {
        opcode: OPC_FORMAT_NVM,
        nsid,
        cdw10: format_cdw10(ns, erase),
        // A user data erase can take minutes on a large drive: far above the 60 s default.
        timeout_ms: 3 * 3600 * 1000,
        ..Default::default()
    };
    admin(fd, "Format NVM", &cmd, None).map(|_| ())
}

/// Start a sanitize. It runs in the background: poll [`sanitize_status`] or call
/// [`wait_sanitize`]. Deallocation after sanitize is left to the drive (NDAS = 0), and a
/// failure leaves the drive in the restricted failure mode (AUSE = 0): only another sanitize
/// can clear it, which is what a purge wants.
pub fn sanitize(fd: BorrowedFd<'_>, action: SanitizeAction) -> Result<()> {
    let cmd = AdminCommand {
        opcode: OPC_SANITIZE,
        cdw10: action.sanact()
            | if action == SanitizeAction::Overwrite {
                1 << 4
            } else {
                0
            },
        ..Default::default()
    };
    admin(fd, "Sanitize", &cmd, None).map(|_| ())
}

/// Status of the most recent sanitize (SSTAT bits 2:0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SanitizeState {
    NeverSanitized,
    Completed,
    InProgress,
    Failed,
    /// Completed, and the drive did not deallocate (No-Deallocate After Sanitize).
    CompletedNoDeallocate,
    Reserved(u8),
}

/// The Sanitize Status log page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SanitizeStatus {
    /// SPROG: fraction done of the sanitize in progress (numerator of /65536).
    pub progress: f64,
    pub state: SanitizeState,
    pub overwrite_passes_completed: u8,
    /// No user data has been written since the last sanitize or manufacture.
    pub global_data_erased: bool,
    /// CDW10 of the sanitize command that started the latest operation.
    pub cdw10: u32,
    /// Estimated seconds for overwrite / block erase / crypto erase; None when not reported.
    pub estimated_overwrite_s: Option<u32>,
    pub estimated_block_erase_s: Option<u32>,
    pub estimated_crypto_erase_s: Option<u32>,
}

impl SanitizeStatus {
    pub fn parse(data: &[u8]) -> Result<Self, ParseError> {
        let b: &[u8; SANITIZE_LOG_LEN] = fixed("Sanitize Status log", data)?;
        let sstat = u16_at(b, 2);
        // FFFFFFFFh: no estimate.
        let estimate = |at| Some(u32_at(b, at)).filter(|&s| s != u32::MAX);
        Ok(SanitizeStatus {
            progress: f64::from(u16_at(b, 0)) / 65536.0,
            state: match sstat & 0x7 {
                0 => SanitizeState::NeverSanitized,
                1 => SanitizeState::Completed,
                2 => SanitizeState::InProgress,
                3 => SanitizeState::Failed,
                4 => SanitizeState::CompletedNoDeallocate,
                n => SanitizeState::Reserved(n as u8),
            },
            overwrite_passes_completed: ((sstat >> 3) & 0x1F) as u8,
            global_data_erased: sstat & 0x100 != 0,
            cdw10: u32_at(b, 4),
            estimated_overwrite_s: estimate(8),
            estimated_block_erase_s: estimate(12),
            estimated_crypto_erase_s: estimate(16),
        })
    }

    /// The estimate for `action`, if the drive gives one.
    pub fn estimate(&self, action: SanitizeAction) -> Option<u32> {
        match action {
            SanitizeAction::BlockErase => self.estimated_block_erase_s,
            SanitizeAction::Overwrite => self.estimated_overwrite_s,
            SanitizeAction::CryptoErase => self.estimated_crypto_erase_s,
        }
    }

    fn poll(&self) -> Poll {
        match self.state {
            SanitizeState::InProgress => Poll::Running(self.progress),
            SanitizeState::Completed | SanitizeState::CompletedNoDeallocate => Poll::Done,
            SanitizeState::Failed => Poll::Failed(
                "the sanitize failed (Sanitize Status log): the drive stays in sanitize failure mode until a sanitize succeeds; run it again".into(),
            ),
            SanitizeState::NeverSanitized | SanitizeState::Reserved(_) => Poll::Failed(format!(
                "the drive reports no sanitize in progress or completed ({:?}) after accepting one",
                self.state
            )),
        }
    }
}

/// Read the Sanitize Status log.
pub fn sanitize_status(fd: BorrowedFd<'_>) -> Result<SanitizeStatus> {
    const NAME: &str = "Get Log Page (Sanitize Status)";
    let mut buf = vec![0u8; SANITIZE_LOG_LEN];
    get_log_page(fd, NAME, LID_SANITIZE_STATUS, NSID_ALL, &mut buf)?;
    SanitizeStatus::parse(&buf).map_err(|source| Error::Parse {
        command: NAME,
        source,
    })
}

/// Poll the Sanitize Status log each second until the sanitize ends, reporting the fraction
/// done. The drive updates the log before it completes the Sanitize command (NVMe 2.0
/// §8.21), so the first poll already sees this sanitize.
pub fn wait_sanitize(
    fd: BorrowedFd<'_>,
    timeout: Duration,
    progress: &mut dyn FnMut(f64),
) -> Result<SanitizeStatus> {
    let mut last = None;
    wait(
        "Sanitize",
        timeout,
        Duration::from_secs(1),
        || {
            let s = sanitize_status(fd)?;
            let p = s.poll();
            last = Some(s);
            Ok(p)
        },
        progress,
    )?;
    last.ok_or_else(|| Error::State("no sanitize status was read".into()))
}

#[cfg(test)]
pub(crate) mod fixtures {
    use crate::nvme::identify::fixtures::put;

    /// A block erase at 25 %, with estimates for block and crypto erase but not overwrite.
    pub fn in_progress() -> Vec<u8> {
        let mut b = vec![0u8; 512];
        put(&mut b, 0, &16384u16.to_le_bytes());
        put(&mut b, 2, &0x0002u16.to_le_bytes());
        put(&mut b, 4, &2u32.to_le_bytes());
        put(&mut b, 8, &u32::MAX.to_le_bytes());
        put(&mut b, 12, &120u32.to_le_bytes());
        put(&mut b, 16, &2u32.to_le_bytes());
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nvme::identify::fixtures::{namespace, put};

    #[test]
    fn status_in_progress() {
        let s = SanitizeStatus::parse(&fixtures::in_progress()).unwrap();
        assert_eq!(s.progress, 0.25);
        assert_eq!(s.state, SanitizeState::InProgress);
        assert_eq!(s.cdw10, 2);
        assert_eq!(s.estimate(SanitizeAction::Overwrite), None);
        assert_eq!(s.estimate(SanitizeAction::BlockErase), Some(120));
        assert_eq!(s.estimate(SanitizeAction::CryptoErase), Some(2));
        assert_eq!(s.poll(), Poll::Running(0.25));
    }

    #[test]
    fn status_completed_with_passes_and_global_erase() {
        let mut b = fixtures::in_progress();
        put(&mut b, 0, &0xFFFFu16.to_le_bytes());
        put(&mut b, 2, &(0x100u16 | 3 << 3 | 1).to_le_bytes());
        let s = SanitizeStatus::parse(&b).unwrap();
        assert_eq!(s.state, SanitizeState::Completed);
        assert_eq!(s.overwrite_passes_completed, 3);
        assert!(s.global_data_erased);
        assert_eq!(s.poll(), Poll::Done);
        put(&mut b, 2, &3u16.to_le_bytes());
        assert!(matches!(
            SanitizeStatus::parse(&b).unwrap().poll(),
            Poll::Failed(_)
        ));
        put(&mut b, 2, &7u16.to_le_bytes());
        assert_eq!(
            SanitizeStatus::parse(&b).unwrap().state,
            SanitizeState::Reserved(7)
        );
    }

    #[test]
    fn format_keeps_the_lba_format_and_protection() {
        let mut ns = IdentifyNamespace::parse(&namespace()).unwrap();
        // Format 1, no metadata, no PI, SES 1.
        assert_eq!(format_cdw10(&ns, FormatErase::UserData), 1 | 1 << 9);
        ns.format_index = 0x21;
        ns.metadata_extended = true;
        ns.protection_type = 1;
        ns.protection_first = true;
        assert_eq!(
            format_cdw10(&ns, FormatErase::Crypto),
            1 | 1 << 4 | 1 << 5 | 1 << 8 | 2 << 9 | 2 << 12
        );
    }

    #[test]
    fn sanitize_actions() {
        assert_eq!(SanitizeAction::BlockErase.sanact(), 2);
        assert_eq!(SanitizeAction::Overwrite.sanact(), 3);
        assert_eq!(SanitizeAction::CryptoErase.sanact(), 4);
    }
}
