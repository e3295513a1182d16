//! Purging a drive before a benchmark: choosing the strongest command the drive supports,
//! and running it. Whether the device may be erased at all is the caller's decision.

use std::fmt;
use std::os::fd::BorrowedFd;
use std::str::FromStr;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::ata::{self, AtaSanitize};
use crate::error::{Error, Result};
use crate::identify::{Detail, Identify};
use crate::nvme::{self, FormatErase, SanitizeAction};

/// What the user asked for (`--purge auto|sanitize|format|secure-erase|discard|none`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PurgeMethod {
    Auto,
    Sanitize,
    Format,
    SecureErase,
    Discard,
    None,
}

impl PurgeMethod {
    pub const ALL: [PurgeMethod; 6] = [
        PurgeMethod::Auto,
        PurgeMethod::Sanitize,
        PurgeMethod::Format,
        PurgeMethod::SecureErase,
        PurgeMethod::Discard,
        PurgeMethod::None,
    ];

    /// The name `--purge` takes.
    pub fn name(self) -> &'static str {
        match self {
            PurgeMethod::Auto => "auto",
            PurgeMethod::Sanitize => "sanitize",
            PurgeMethod::Format => "format",
            PurgeMethod::SecureErase => "secure-erase",
            PurgeMethod::Discard => "discard",
            PurgeMethod::None => "none",
        }
    }
}

impl FromStr for PurgeMethod {
    type Err = UnknownPurgeMethod;

    fn from_str(s: &str) -> Result<Self, UnknownPurgeMethod> {
        let s = s.trim();
        PurgeMethod::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| UnknownPurgeMethod(s.to_string()))
    }
}

/// A `--purge` name [`PurgeMethod`] does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown purge method {0:?}: use auto, sanitize, format, secure-erase, discard or none")]
pub struct UnknownPurgeMethod(pub String);

impl fmt::Display for PurgeMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One concrete purge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Purge {
    NvmeSanitize(SanitizeAction),
    NvmeFormat(FormatErase),
    AtaSanitize(AtaSanitize),
    AtaSecurityErase {
        enhanced: bool,
    },
    /// BLKDISCARD over the whole device: the caller's job, not a drive command.
    Discard,
    None,
}

impl Purge {
    /// The name a review records.
    pub fn name(&self) -> &'static str {
        match self {
            Purge::NvmeSanitize(SanitizeAction::BlockErase) => "NVMe Sanitize (block erase)",
            Purge::NvmeSanitize(SanitizeAction::CryptoErase) => "NVMe Sanitize (crypto erase)",
            Purge::NvmeSanitize(SanitizeAction::Overwrite) => "NVMe Sanitize (overwrite)",
            Purge::NvmeFormat(FormatErase::UserData) => "NVMe Format NVM (user data erase)",
            Purge::NvmeFormat(FormatErase::Crypto) => "NVMe Format NVM (crypto erase)",
            Purge::AtaSanitize(AtaSanitize::BlockErase) => "ATA SANITIZE (block erase)",
            Purge::AtaSanitize(AtaSanitize::CryptoScramble) => "ATA SANITIZE (crypto scramble)",
            Purge::AtaSecurityErase { enhanced: false } => "ATA SECURITY ERASE UNIT (normal)",
            Purge::AtaSecurityErase { enhanced: true } => "ATA SECURITY ERASE UNIT (enhanced)",
            Purge::Discard => "discard (BLKDISCARD)",
            Purge::None => "none",
        }
    }

    /// Whether this purge erases more than the namespace the device node stands for: an NVMe
    /// sanitize always acts on the whole NVM subsystem, a Format NVM when FNA says so. The
    /// caller's safety checks must then cover every namespace of the controller.
    pub fn erases_all_namespaces(&self, identify: &Identify) -> bool {
        match (self, &identify.detail) {
            (Purge::NvmeSanitize(_), _) => true,
            (Purge::NvmeFormat(_), Detail::Nvme { controller, .. }) => {
                controller.fna.format_applies_to_all_namespaces
                    || controller.fna.secure_erase_applies_to_all_namespaces
            }
            _ => false,
        }
    }
}

impl fmt::Display for Purge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

fn nvme_sanitize(c: &nvme::IdentifyController) -> Option<Purge> {
    // Overwrite is never chosen: it wears the flash and is slow.
    if c.sanicap.block_erase {
        Some(Purge::NvmeSanitize(SanitizeAction::BlockErase))
    } else if c.sanicap.crypto_erase {
        Some(Purge::NvmeSanitize(SanitizeAction::CryptoErase))
    } else {
        None
    }
}

fn nvme_format(
    c: &nvme::IdentifyController,
    ns: Option<&nvme::IdentifyNamespace>,
) -> Option<Purge> {
    // Keeping the LBA format in use needs the namespace's identify data.
    (c.oacs.format_nvm && ns.is_some()).then_some(Purge::NvmeFormat(FormatErase::UserData))
}

fn ata_sanitize(d: &ata::IdentifyDevice) -> Option<Purge> {
    if !d.sanitize.supported {
        None
    } else if d.sanitize.block_erase {
        Some(Purge::AtaSanitize(AtaSanitize::BlockErase))
    } else if d.sanitize.crypto_scramble {
        Some(Purge::AtaSanitize(AtaSanitize::CryptoScramble))
    } else {
        None
    }
}

fn ata_security_erase(d: &ata::IdentifyDevice) -> Option<Purge> {
    ata::security::check_erasable(d)
        .is_ok()
        .then_some(Purge::AtaSecurityErase {
            enhanced: d.security.enhanced_erase_supported,
        })
}

/// The purges to try, best first. `Auto`: NVMe Sanitize (block erase, else crypto erase),
/// else Format NVM with user data erase, else ATA SANITIZE (block erase, else crypto
/// scramble), else ATA SECURITY ERASE UNIT (when the security state allows it now), then
/// always Discard last. A named method gives that method alone, or an error saying why the
/// drive cannot do it.
pub fn plan(identify: &Identify, method: PurgeMethod) -> Result<Vec<Purge>> {
    let (nvme_ctrl, nvme_ns, ata_dev) = match &identify.detail {
        Detail::Nvme {
            controller,
            namespace,
            ..
        } => (Some(controller), namespace.as_ref(), None),
        Detail::Ata(d) => (None, None, Some(d)),
    };
    let sanitize = nvme_ctrl
        .and_then(nvme_sanitize)
        .or_else(|| ata_dev.and_then(ata_sanitize));
    let format = nvme_ctrl.and_then(|c| nvme_format(c, nvme_ns));
    let secure_erase = ata_dev.and_then(ata_security_erase);
    let unsupported = |what: &str| {
        Error::Unsupported(format!(
            "{} {} does not support {what}",
            identify.interface, identify.model
        ))
    };
    Ok(match method {
        PurgeMethod::Auto => {
            let mut v: Vec<Purge> = [sanitize, format, secure_erase].into_iter().flatten().collect();
            v.push(Purge::Discard);
            v
        }
        PurgeMethod::Sanitize => vec![sanitize.ok_or_else(|| unsupported("sanitize by block erase or crypto erase"))?],
        PurgeMethod::Format => vec![format.ok_or_else(|| match ata_dev {
            Some(_) => Error::Unsupported("Format NVM is an NVMe command: for a SATA drive use sanitize or secure-erase".into()),
            None if nvme_ns.is_none() => Error::Unsupported(
                "Format NVM needs the namespace: open the namespace device (/dev/nvme0n1), not the controller".into(),
            ),
            None => unsupported("Format NVM"),
        })?],
        PurgeMethod::SecureErase => match (nvme_ctrl, ata_dev) {
            // NVMe's secure erase is Format NVM with Secure Erase Settings.
            (Some(_), _) => vec![format.ok_or_else(|| unsupported("Format NVM with secure erase"))?],
            (_, Some(d)) => {
                ata::security::check_erasable(d)?;
                vec![Purge::AtaSecurityErase { enhanced: d.security.enhanced_erase_supported }]
            }
            (None, None) => return Err(unsupported("secure erase")),
        },
        PurgeMethod::Discard => vec![Purge::Discard],
        PurgeMethod::None => vec![Purge::None],
    })
}

/// What a purge did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PurgeReport {
    /// As a review records it, e.g. "NVMe Sanitize (block erase)".
    pub method: String,
    pub seconds: f64,
}

/// How long to wait for a sanitize: three times the drive's estimate plus ten minutes, or a
/// day when it gives none.
fn sanitize_timeout(estimate_s: Option<u32>) -> Duration {
    estimate_s.map_or(Duration::from_secs(24 * 3600), |s| {
        Duration::from_secs(3 * u64::from(s) + 600)
    })
}

/// Run one drive purge on `fd`, reporting progress as a fraction (0..=1). Sanitizes are
/// waited for; Format NVM and SECURITY ERASE UNIT block until done (progress jumps 0 -> 1).
/// `Discard` and `None` are not drive commands: the caller does them.
pub fn execute(
    fd: BorrowedFd<'_>,
    purge: Purge,
    progress: &mut dyn FnMut(f64),
) -> Result<PurgeReport> {
    let start = Instant::now();
    progress(0.0);
    match purge {
        Purge::NvmeSanitize(action) => {
            let before = nvme::sanitize_status(fd)?;
            if before.state == nvme::sanitize::SanitizeState::InProgress {
                return Err(Error::State("a sanitize is already in progress on this drive: wait for it to finish".into()));
            }
            nvme::sanitize(fd, action)?;
            nvme::wait_sanitize(fd, sanitize_timeout(before.estimate(action)), progress)?;
        }
        Purge::NvmeFormat(erase) => {
            let nsid = nvme::namespace_id(fd).ok_or_else(|| {
                Error::Unsupported("Format NVM needs the namespace: open the namespace device (/dev/nvme0n1), not the controller".into())
            })?;
            let ns = nvme::identify_namespace(fd, nsid)?;
            nvme::format_nvm(fd, nsid, &ns, erase)?;
        }
        Purge::AtaSanitize(op) => {
            ata::sanitize::sanitize(fd, op)?;
            ata::sanitize::wait_sanitize(fd, sanitize_timeout(None), progress)?;
        }
        Purge::AtaSecurityErase { enhanced } => {
            // Fresh identify data: the security state (frozen, enabled) may have changed.
            let id = ata::identify_device(fd)?;
            ata::security_erase(fd, &id, enhanced)?;
        }
        Purge::Discard | Purge::None => {
            return Err(Error::Unsupported(format!(
                "{} is not a drive command: the caller does it (BLKDISCARD over the device, or nothing)",
                purge.name()
            )))
        }
    }
    progress(1.0);
    Ok(PurgeReport {
        method: purge.name().to_string(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ata::identify::fixtures::ssd;
    use crate::ata::IdentifyDevice;
    use crate::nvme::identify::fixtures::{controller, namespace};
    use crate::nvme::{IdentifyController, IdentifyNamespace};

    fn nvme_id(edit: impl FnOnce(&mut IdentifyController), with_ns: bool) -> Identify {
        let mut c = IdentifyController::parse(&controller()).unwrap();
        edit(&mut c);
        let ns = with_ns.then(|| IdentifyNamespace::parse(&namespace()).unwrap());
        Identify::from_nvme(with_ns.then_some(1), c, ns)
    }

    fn ata_id(edit: impl FnOnce(&mut IdentifyDevice)) -> Identify {
        let mut d = IdentifyDevice::parse(&ssd().bytes()).unwrap();
        edit(&mut d);
        Identify::from_ata(d)
    }

    #[test]
    fn methods_parse_and_print() {
        for s in [
            "auto",
            "sanitize",
            "format",
            "secure-erase",
            "discard",
            "none",
        ] {
            assert_eq!(s.parse::<PurgeMethod>().unwrap().to_string(), s);
        }
        assert!("erase"
            .parse::<PurgeMethod>()
            .unwrap_err()
            .to_string()
            .contains("use auto, sanitize"));
    }

    #[test]
    fn auto_on_nvme() {
        use Purge::*;
        let id = nvme_id(|_| {}, true);
        assert_eq!(
            plan(&id, PurgeMethod::Auto).unwrap(),
            [
                NvmeSanitize(SanitizeAction::BlockErase),
                NvmeFormat(FormatErase::UserData),
                Discard
            ]
        );
        let crypto_only = nvme_id(|c| c.sanicap.block_erase = false, true);
        assert_eq!(
            plan(&crypto_only, PurgeMethod::Auto).unwrap()[0],
            NvmeSanitize(SanitizeAction::CryptoErase)
        );
        let overwrite_only = nvme_id(
            |c| {
                c.sanicap = nvme::identify::Sanicap {
                    overwrite: true,
                    ..Default::default()
                };
                c.oacs.format_nvm = false;
            },
            true,
        );
        assert_eq!(plan(&overwrite_only, PurgeMethod::Auto).unwrap(), [Discard]);
        assert!(plan(&overwrite_only, PurgeMethod::Sanitize)
            .unwrap_err()
            .to_string()
            .contains("does not support sanitize"));
        let controller_node = nvme_id(|c| c.sanicap = Default::default(), false);
        assert_eq!(
            plan(&controller_node, PurgeMethod::Auto).unwrap(),
            [Discard]
        );
        assert!(plan(&controller_node, PurgeMethod::Format)
            .unwrap_err()
            .to_string()
            .contains("/dev/nvme0n1"));
        assert_eq!(
            plan(&id, PurgeMethod::SecureErase).unwrap(),
            [NvmeFormat(FormatErase::UserData)]
        );
        assert!(NvmeSanitize(SanitizeAction::BlockErase).erases_all_namespaces(&id));
        assert!(!NvmeFormat(FormatErase::UserData).erases_all_namespaces(&id));
    }

    #[test]
    fn auto_on_ata() {
        use Purge::*;
        let id = ata_id(|_| {});
        assert_eq!(
            plan(&id, PurgeMethod::Auto).unwrap(),
            [
                AtaSanitize(ata::AtaSanitize::BlockErase),
                AtaSecurityErase { enhanced: true },
                Discard
            ]
        );
        let frozen_no_sanitize = ata_id(|d| {
            d.sanitize.supported = false;
            d.security.frozen = true;
        });
        assert_eq!(
            plan(&frozen_no_sanitize, PurgeMethod::Auto).unwrap(),
            [Discard]
        );
        assert_eq!(
            plan(&frozen_no_sanitize, PurgeMethod::SecureErase)
                .unwrap_err()
                .to_string(),
            ata::security::FROZEN
        );
        assert!(plan(&id, PurgeMethod::Format)
            .unwrap_err()
            .to_string()
            .contains("NVMe command"));
        let crypto = ata_id(|d| d.sanitize.block_erase = false);
        assert_eq!(
            plan(&crypto, PurgeMethod::Sanitize).unwrap(),
            [AtaSanitize(ata::AtaSanitize::CryptoScramble)]
        );
        assert_eq!(plan(&id, PurgeMethod::None).unwrap(), [None]);
        assert_eq!(plan(&id, PurgeMethod::Discard).unwrap(), [Discard]);
    }

    #[test]
    fn names_as_a_review_records_them() {
        assert_eq!(
            Purge::NvmeSanitize(SanitizeAction::BlockErase).to_string(),
            "NVMe Sanitize (block erase)"
        );
        assert_eq!(
            Purge::AtaSecurityErase { enhanced: false }.name(),
            "ATA SECURITY ERASE UNIT (normal)"
        );
        assert_eq!(sanitize_timeout(Some(100)), Duration::from_secs(900));
    }
}
