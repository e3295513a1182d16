//! ATA Security feature set erase (ACS-3 §7.38-7.41): set a user password, then SECURITY
//! ERASE PREPARE immediately followed by SECURITY ERASE UNIT, which erases and clears the
//! password.

use std::os::fd::BorrowedFd;

use super::identify::IdentifyDevice;
use super::passthru::{ata_command, Data, Taskfile};
use crate::error::{Error, Result};

/// The temporary user password set for the erase (the erase clears it).
pub const ERASE_PASSWORD: &[u8] = b"ssdlab";

pub const FROZEN: &str = "the drive's security is frozen by the BIOS: suspend and resume the machine, or hot-plug the drive, then try again";

/// The 512-byte data block of SECURITY SET PASSWORD / SECURITY ERASE UNIT: word 0 control
/// bits, words 1-16 the password.
pub fn password_block(control: u16, password: &[u8]) -> [u8; 512] {
    let mut b = [0u8; 512];
    b[0..2].copy_from_slice(&control.to_le_bytes());
    let n = password.len().min(32);
    b[2..2 + n].copy_from_slice(&password[..n]);
    b
}

/// Why the drive's security state forbids an erase now, if it does.
pub fn check_erasable(id: &IdentifyDevice) -> Result<()> {
    let s = &id.security;
    if !s.supported {
        return Err(Error::Unsupported(
            "the drive does not support the ATA Security feature set (no SECURITY ERASE UNIT)"
                .into(),
        ));
    }
    if s.frozen {
        return Err(Error::State(FROZEN.into()));
    }
    if s.locked {
        return Err(Error::State("the drive is locked by a security password: unlock it (hdparm --security-unlock) first".into()));
    }
    if s.count_expired {
        return Err(Error::State(
            "the drive's password attempt counter expired: power-cycle the drive, then try again"
                .into(),
        ));
    }
    if s.enabled {
        return Err(Error::State(
            "the drive already has a security password set: disable it (hdparm --security-disable PASSWORD) first".into(),
        ));
    }
    Ok(())
}

/// Erase the whole drive with SECURITY ERASE UNIT. Blocks for the whole erase: the timeout
/// is twice the drive's own estimate, and at least two hours when it gives none.
pub fn security_erase(fd: BorrowedFd<'_>, id: &IdentifyDevice, enhanced: bool) -> Result<()> {
    check_erasable(id)?;
    if enhanced && !id.security.enhanced_erase_supported {
        return Err(Error::Unsupported(
            "the drive does not support the enhanced security erase".into(),
        ));
    }
    let minutes = if enhanced {
        id.security.enhanced_erase_minutes
    } else {
        id.security.erase_minutes
    };
    let timeout_ms = minutes
        .map_or(120, |m| (2 * m).max(120))
        .saturating_mul(60_000);

    // SECURITY SET PASSWORD, user password (word 0 bit 0 = 0), high security (bit 8 = 0).
    let block = password_block(0, ERASE_PASSWORD);
    let tf = Taskfile {
        command: 0xF1,
        count: 1,
        ..Default::default()
    };
    ata_command(
        fd,
        "SECURITY SET PASSWORD",
        &tf,
        Data::Out(&block),
        false,
        false,
        15_000,
    )?;

    let with_password_hint = |e: Error| {
        match e {
        Error::Refused { command, reason } => Error::Refused {
            command,
            reason: format!(
                "{reason}; the drive keeps the user password \"{}\": clear it with hdparm --user-master u --security-disable {}",
                String::from_utf8_lossy(ERASE_PASSWORD),
                String::from_utf8_lossy(ERASE_PASSWORD)
            ),
        },
        other => other,
    }
    };
    // SECURITY ERASE PREPARE must immediately precede SECURITY ERASE UNIT.
    let tf = Taskfile {
        command: 0xF3,
        ..Default::default()
    };
    ata_command(
        fd,
        "SECURITY ERASE PREPARE",
        &tf,
        Data::None,
        false,
        false,
        15_000,
    )
    .map_err(with_password_hint)?;
    // Word 0: bit 0 user password, bit 1 enhanced erase.
    let block = password_block(u16::from(enhanced) << 1, ERASE_PASSWORD);
    let tf = Taskfile {
        command: 0xF4,
        count: 1,
        ..Default::default()
    };
    ata_command(
        fd,
        "SECURITY ERASE UNIT",
        &tf,
        Data::Out(&block),
        false,
        false,
        timeout_ms,
    )
    .map_err(with_password_hint)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ata::identify::fixtures::ssd;

    #[test]
    fn password_block_layout() {
        let b = password_block(2, b"ssdlab");
        assert_eq!(&b[..8], &[2, 0, b's', b's', b'd', b'l', b'a', b'b']);
        assert!(b[8..].iter().all(|&x| x == 0));
        let long = password_block(0, &[b'x'; 40]);
        assert_eq!(long[33], b'x');
        assert_eq!(long[34], 0);
    }

    #[test]
    fn frozen_locked_and_enabled_states_refuse_clearly() {
        let id = IdentifyDevice::parse(&ssd().bytes()).unwrap();
        assert!(check_erasable(&id).is_ok());
        let mut frozen = id.clone();
        frozen.security.frozen = true;
        assert_eq!(check_erasable(&frozen).unwrap_err().to_string(), FROZEN);
        let mut locked = id.clone();
        locked.security.locked = true;
        assert!(check_erasable(&locked)
            .unwrap_err()
            .to_string()
            .contains("locked"));
        let mut none = id;
        none.security.supported = false;
        assert!(matches!(check_erasable(&none), Err(Error::Unsupported(_))));
    }
}
