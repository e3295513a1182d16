//! The drive's volatile write cache: whether it has one, whether it is on, and switching it,
//! as the SNIA PTS asks (PTS-E: off where the drive allows, PTS-C: on). NVMe: Get/Set
//! Features, Volatile Write Cache (FID 06h, WCE in bit 0); ATA: IDENTIFY DEVICE words 82/85
//! bit 5 and SET FEATURES 02h (enable) / 82h (disable). A switch lasts until the drive is
//! reset or powered off (NVMe's saved value, ATA's default, are left alone).

use std::os::fd::BorrowedFd;

use crate::ata::passthru::{ata_command, Data, Taskfile};
use crate::nvme::passthru::{admin, AdminCommand};
use crate::{ata, nvme, Drive, Interface, Result};

const OPC_GET_FEATURES: u8 = 0x0A;
const OPC_SET_FEATURES: u8 = 0x09;
const FID_VOLATILE_WRITE_CACHE: u32 = 0x06;
const ATA_SET_FEATURES: u8 = 0xEF;
const ATA_ENABLE_WRITE_CACHE: u16 = 0x02;
const ATA_DISABLE_WRITE_CACHE: u16 = 0x82;

impl Drive<'_> {
    /// Whether the write cache is on; `None` when the drive has none.
    pub fn write_cache(&self) -> Result<Option<bool>> {
        let fd = self.fd();
        match self.interface() {
            Interface::Nvme => {
                if !nvme::identify_controller(fd)?.volatile_write_cache {
                    return Ok(None);
                }
                let cmd = AdminCommand {
                    opcode: OPC_GET_FEATURES,
                    cdw10: FID_VOLATILE_WRITE_CACHE,
                    ..Default::default()
                };
                let dword0 = admin(fd, "Get Features (Volatile Write Cache)", &cmd, None)?;
                Ok(Some(dword0 & 1 == 1))
            }
            Interface::Ata => {
                let id = ata::identify_device(fd)?;
                Ok(id.write_cache_supported.then_some(id.write_cache_enabled))
            }
        }
    }

    /// Turn the write cache on or off.
    pub fn set_write_cache(&self, on: bool) -> Result<()> {
        let fd = self.fd();
        match self.interface() {
            Interface::Nvme => set_nvme(fd, on),
            Interface::Ata => {
                let tf = Taskfile {
                    command: ATA_SET_FEATURES,
                    feature: if on {
                        ATA_ENABLE_WRITE_CACHE
                    } else {
                        ATA_DISABLE_WRITE_CACHE
                    },
                    device: 0x40,
                    ..Default::default()
                };
                let name = "SET FEATURES (write cache)";
                ata_command(fd, name, &tf, Data::None, false, false, 15_000).map(|_| ())
            }
        }
    }
}

fn set_nvme(fd: BorrowedFd<'_>, on: bool) -> Result<()> {
    let cmd = AdminCommand {
        opcode: OPC_SET_FEATURES,
        cdw10: FID_VOLATILE_WRITE_CACHE,
        cdw11: u32::from(on),
        ..Default::default()
    };
    admin(fd, "Set Features (Volatile Write Cache)", &cmd, None).map(|_| ())
}
