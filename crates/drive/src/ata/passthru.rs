//! ATA commands through the SCSI layer: SG_IO with an ATA PASS-THROUGH (16) CDB (SAT-3
//! §12.2.2) on /dev/sdX or /dev/sgN, and the ATA registers the translator sends back in the
//! sense data.

use std::os::fd::{AsRawFd, BorrowedFd};

use serde::{Deserialize, Serialize};

use crate::bytes::u8_at;
use crate::error::{ioctl_error, Error, Result};

const SG_IO: libc::c_ulong = 0x2285;
const SG_DXFER_NONE: libc::c_int = -1;
const SG_DXFER_TO_DEV: libc::c_int = -2;
const SG_DXFER_FROM_DEV: libc::c_int = -3;
const SENSE_LEN: usize = 32;

/// `struct sg_io_hdr` from <scsi/sg.h>.
#[repr(C)]
struct SgIoHdr {
    interface_id: libc::c_int,
    dxfer_direction: libc::c_int,
    cmd_len: u8,
    mx_sb_len: u8,
    iovec_count: u16,
    dxfer_len: u32,
    dxferp: *mut libc::c_void,
    cmdp: *const u8,
    sbp: *mut u8,
    timeout: u32,
    flags: u32,
    pack_id: libc::c_int,
    usr_ptr: *mut libc::c_void,
    status: u8,
    masked_status: u8,
    msg_status: u8,
    sb_len_wr: u8,
    host_status: u16,
    driver_status: u16,
    resid: libc::c_int,
    duration: u32,
    info: u32,
}

/// The input registers of one ATA command (48-bit layout; 28-bit commands use the low bits).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Taskfile {
    pub command: u8,
    pub feature: u16,
    pub count: u16,
    pub lba: u64,
    pub device: u8,
}

/// How data moves (the PROTOCOL field: 3 non-data, 4 PIO data-in, 5 PIO data-out).
#[derive(Debug)]
pub enum Data<'a> {
    None,
    In(&'a mut [u8]),
    Out(&'a [u8]),
}

/// The ATA PASS-THROUGH (16) CDB. `extend` selects 48-bit registers; `check_condition` asks
/// the translator to return the output registers even on success (CK_COND).
pub fn cdb(tf: &Taskfile, data: &Data<'_>, extend: bool, check_condition: bool) -> [u8; 16] {
    let (protocol, t_dir, t_length) = match data {
        Data::None => (3u8, 0u8, 0u8),
        Data::In(_) => (4, 1, 2), // length in COUNT, in 512-byte blocks (BYTE_BLOCK 1)
        Data::Out(_) => (5, 0, 2),
    };
    let byte_block = u8::from(t_length != 0);
    let l = tf.lba.to_le_bytes();
    let f = tf.feature.to_le_bytes();
    let c = tf.count.to_le_bytes();
    [
        0x85,
        protocol << 1 | u8::from(extend),
        u8::from(check_condition) << 5 | t_dir << 3 | byte_block << 2 | t_length,
        f[1],
        f[0],
        c[1],
        c[0],
        l[3], // LBA 31:24
        l[0], // LBA 7:0
        l[4], // LBA 39:32
        l[1], // LBA 15:8
        l[5], // LBA 47:40
        l[2], // LBA 23:16
        tf.device,
        tf.command,
        0,
    ]
}

/// The output registers of an ATA command, from the ATA Status Return sense descriptor
/// (SAT-3 §12.2.2.7) or the fixed-format sense fields (§12.2.2.6, which lose the upper
/// COUNT and LBA bits: `upper_lost` then says so).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AtaRegisters {
    pub error: u8,
    pub count: u16,
    pub lba: u64,
    pub device: u8,
    pub status: u8,
    /// Fixed-format sense: COUNT 15:8 and LBA 47:24 were not returned.
    pub upper_lost: bool,
    /// Fixed-format sense only: the lost upper COUNT bits were not all zero.
    pub count_upper_nonzero: bool,
}

impl AtaRegisters {
    /// Status ERR (bit 0) or DF (device fault, bit 5).
    pub fn failed(&self) -> bool {
        self.status & 0x21 != 0
    }

    /// What the error register says, in words.
    pub fn describe(&self) -> String {
        let mut what = vec![];
        if self.status & 0x20 != 0 {
            what.push("device fault");
        }
        if self.error & 0x04 != 0 {
            what.push("command aborted (ABRT: not supported, or not allowed in the drive's current state)");
        }
        if self.error & 0x10 != 0 {
            what.push("address not found (IDNF)");
        }
        if self.error & 0x40 != 0 {
            what.push("uncorrectable data (UNC)");
        }
        if self.error & 0x80 != 0 {
            what.push("interface CRC error (ICRC)");
        }
        if what.is_empty() {
            what.push("error");
        }
        format!(
            "{} (status {:#04x} error {:#04x})",
            what.join(", "),
            self.status,
            self.error
        )
    }
}

/// Decoded sense data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sense {
    pub key: u8,
    pub asc: u8,
    pub ascq: u8,
    pub ata: Option<AtaRegisters>,
}

/// Decode a sense buffer in descriptor (72h/73h) or fixed (70h/71h) format.
pub fn decode_sense(buf: &[u8]) -> Option<Sense> {
    match u8_at(buf, 0) & 0x7F {
        0x72 | 0x73 => {
            let mut sense = Sense {
                key: u8_at(buf, 1) & 0xF,
                asc: u8_at(buf, 2),
                ascq: u8_at(buf, 3),
                ata: None,
            };
            let end = (8 + usize::from(u8_at(buf, 7))).min(buf.len());
            let mut at = 8;
            while at + 2 <= end {
                let (code, len) = (u8_at(buf, at), usize::from(u8_at(buf, at + 1)));
                let d = &buf[at..(at + 2 + len).min(end)];
                if code == 0x09 && d.len() >= 14 {
                    let lba = [d[7], d[9], d[11], d[6], d[8], d[10], 0, 0];
                    sense.ata = Some(AtaRegisters {
                        error: d[3],
                        count: u16::from_le_bytes([d[5], d[4]]),
                        lba: u64::from_le_bytes(lba),
                        device: d[12],
                        status: d[13],
                        upper_lost: false,
                        count_upper_nonzero: false,
                    });
                }
                at += 2 + len;
            }
            Some(sense)
        }
        0x70 | 0x71 => {
            let key = u8_at(buf, 2) & 0xF;
            let (asc, ascq) = (u8_at(buf, 12), u8_at(buf, 13));
            if buf.len() < 14 {
                return Some(Sense {
                    key,
                    asc,
                    ascq,
                    ata: None,
                });
            }
            // The translator fills these fields for ATA PASS-THROUGH: with "ATA pass through
            // information available" (00h/1Dh), or with the error's sense key.
            let carries_ata = (asc, ascq) == (0, 0x1D) || matches!(key, 0x01 | 0x03 | 0x04 | 0x0B);
            let ata = carries_ata.then(|| AtaRegisters {
                error: buf[3],
                status: buf[4],
                device: buf[5],
                count: u16::from(buf[6]),
                lba: u64::from_le_bytes([buf[9], buf[10], buf[11], 0, 0, 0, 0, 0]),
                upper_lost: true,
                count_upper_nonzero: buf[8] & 0x40 != 0,
            });
            Some(Sense {
                key,
                asc,
                ascq,
                ata,
            })
        }
        _ => None,
    }
}

/// Judge a completed SG_IO: the output registers, or why the command failed.
pub fn outcome(
    command: &'static str,
    scsi_status: u8,
    host_status: u16,
    driver_status: u16,
    sense: &[u8],
) -> Result<Option<AtaRegisters>> {
    if host_status != 0 {
        return Err(Error::Refused {
            command,
            reason: format!("the host adapter reported status {host_status:#x} (the drive is unreachable or timed out)"),
        });
    }
    // The driver byte's low bits are errors; DRIVER_SENSE (08h) only says sense is present.
    if driver_status & 0x7 != 0 {
        return Err(Error::Refused {
            command,
            reason: format!("the SCSI driver reported status {driver_status:#x}"),
        });
    }
    let sense = decode_sense(sense);
    match (scsi_status, sense) {
        (0, s) => Ok(s.and_then(|s| s.ata)),
        (0x02, Some(Sense { ata: Some(regs), .. })) if regs.failed() => {
            Err(Error::Refused { command, reason: format!("ATA {}", regs.describe()) })
        }
        (0x02, Some(Sense { ata: Some(regs), .. })) => Ok(Some(regs)),
        (0x02, Some(Sense { key: 0x05, asc, ascq, .. })) => Err(Error::Unsupported(format!(
            "the device refused ATA PASS-THROUGH for {command} (illegal request, asc {asc:#04x} ascq {ascq:#04x}): not an ATA drive, or a USB bridge without SAT"
        ))),
        (0x02, Some(Sense { key, asc, ascq, .. })) => Err(Error::Refused {
            command,
            reason: format!("SCSI check condition (sense key {key:#x} asc {asc:#04x} ascq {ascq:#04x})"),
        }),
        (status, _) => Err(Error::Refused { command, reason: format!("SCSI status {status:#04x}") }),
    }
}

/// Send one ATA command. `timeout_ms` bounds the wait in the kernel.
pub fn ata_command(
    fd: BorrowedFd<'_>,
    name: &'static str,
    tf: &Taskfile,
    mut data: Data<'_>,
    extend: bool,
    check_condition: bool,
    timeout_ms: u32,
) -> Result<Option<AtaRegisters>> {
    let cdb = cdb(tf, &data, extend, check_condition);
    let mut sense = [0u8; SENSE_LEN];
    let (dir, ptr, len) = match &mut data {
        Data::None => (SG_DXFER_NONE, std::ptr::null_mut(), 0),
        Data::In(b) => (SG_DXFER_FROM_DEV, b.as_mut_ptr().cast(), b.len()),
        Data::Out(b) => (SG_DXFER_TO_DEV, b.as_ptr() as *mut libc::c_void, b.len()),
    };
    let mut hdr = SgIoHdr {
        interface_id: b'S' as libc::c_int,
        dxfer_direction: dir,
        cmd_len: cdb.len() as u8,
        mx_sb_len: SENSE_LEN as u8,
        iovec_count: 0,
        dxfer_len: len as u32,
        dxferp: ptr,
        cmdp: cdb.as_ptr(),
        sbp: sense.as_mut_ptr(),
        timeout: timeout_ms,
        flags: 0,
        pack_id: 0,
        usr_ptr: std::ptr::null_mut(),
        status: 0,
        masked_status: 0,
        msg_status: 0,
        sb_len_wr: 0,
        host_status: 0,
        driver_status: 0,
        resid: 0,
        duration: 0,
        info: 0,
    };
    // SAFETY: the header points at the CDB, the sense buffer and the data buffer (for a
    // data-out command the kernel only reads it), all alive for the call.
    let ret = unsafe { libc::ioctl(fd.as_raw_fd(), SG_IO as _, &mut hdr) };
    if ret < 0 {
        return Err(ioctl_error(name, std::io::Error::last_os_error()));
    }
    let written = usize::from(hdr.sb_len_wr).min(SENSE_LEN);
    outcome(
        name,
        hdr.status,
        hdr.host_status,
        hdr.driver_status,
        &sense[..written],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smart_read_data_cdb() {
        // SMART READ DATA: feature D0h, LBA mid 4Fh / high C2h, PIO data-in, 1 block.
        let mut buf = [0u8; 512];
        let c = cdb(
            &crate::ata::smart::SMART_READ_DATA,
            &Data::In(&mut buf),
            false,
            false,
        );
        assert_eq!(
            c,
            [0x85, 0x08, 0x0E, 0, 0xD0, 0, 1, 0, 0, 0, 0x4F, 0, 0xC2, 0, 0xB0, 0]
        );
    }

    #[test]
    fn sanitize_cdb_places_48_bit_lba_bytes() {
        // BLOCK ERASE EXT: feature 0012h, LBA 0000_426B_4572h ("BkEr"), non-data, 48-bit.
        let tf = Taskfile {
            command: 0xB4,
            feature: 0x0012,
            count: 0,
            lba: 0x426B_4572,
            device: 0x40,
        };
        let c = cdb(&tf, &Data::None, true, true);
        assert_eq!(
            c,
            [0x85, 0x07, 0x20, 0, 0x12, 0, 0, 0x42, 0x72, 0, 0x45, 0, 0x6B, 0x40, 0xB4, 0]
        );
        let tf = Taskfile {
            lba: 0x0123_4567_89AB,
            ..tf
        };
        let c = cdb(&tf, &Data::None, true, false);
        // LBA 31:24, 7:0, 39:32, 15:8, 47:40, 23:16
        assert_eq!(&c[7..13], &[0x45, 0xAB, 0x23, 0x89, 0x01, 0x67][..]);
    }

    /// Descriptor-format sense with an ATA Status Return descriptor (SAT-3 table 200).
    fn descriptor_sense(key: u8, asc: u8, ascq: u8, regs: [u8; 12]) -> Vec<u8> {
        let mut s = vec![0x72, key, asc, ascq, 0, 0, 0, 14, 0x09, 0x0C];
        s.extend_from_slice(&regs);
        s
    }

    #[test]
    fn ata_status_return_descriptor() {
        // extend, error 0, count 8000h, LBA 0000_0000_FFFF... as bytes, device 40h, status 50h
        let regs = [
            1, 0x00, 0x80, 0x00, 0x11, 0xFF, 0x22, 0xFF, 0x33, 0x44, 0x40, 0x50,
        ];
        let s = decode_sense(&descriptor_sense(0x01, 0, 0x1D, regs)).unwrap();
        let r = s.ata.unwrap();
        assert_eq!(
            (r.error, r.count, r.device, r.status),
            (0, 0x8000, 0x40, 0x50)
        );
        assert_eq!(r.lba, 0x3322_1144_FFFF);
        assert!(!r.failed() && !r.upper_lost);
        assert_eq!(
            outcome(
                "SANITIZE STATUS EXT",
                2,
                0,
                0x08,
                &descriptor_sense(1, 0, 0x1D, regs)
            )
            .unwrap(),
            Some(r)
        );
    }

    #[test]
    fn an_aborted_command_is_a_clear_error() {
        let regs = [0, 0x04, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x51];
        let e = outcome(
            "SECURITY ERASE UNIT",
            2,
            0,
            0x08,
            &descriptor_sense(0x0B, 0, 0, regs),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the drive refused SECURITY ERASE UNIT: ATA command aborted (ABRT: not supported, or not allowed in the drive's current state) (status 0x51 error 0x04)"
        );
    }

    #[test]
    fn fixed_format_sense_keeps_the_low_registers() {
        let mut s = vec![0u8; 18];
        s[0] = 0x70;
        s[2] = 0x01;
        s[7] = 10;
        (s[3], s[4], s[5], s[6]) = (0, 0x50, 0x40, 0x34);
        (s[8], s[9], s[10], s[11]) = (0x40, 0x12, 0x34, 0x56);
        s[12] = 0;
        s[13] = 0x1D;
        let r = decode_sense(&s).unwrap().ata.unwrap();
        assert_eq!(
            (r.count, r.lba, r.status, r.device),
            (0x34, 0x56_3412, 0x50, 0x40)
        );
        assert!(r.upper_lost && r.count_upper_nonzero);
    }

    #[test]
    fn illegal_request_without_registers_means_no_ata() {
        let s = [
            0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x20, 0x00, 0, 0, 0, 0,
        ];
        let e = outcome("IDENTIFY DEVICE", 2, 0, 0x08, &s).unwrap_err();
        assert!(matches!(e, Error::Unsupported(_)), "{e}");
        assert!(e.to_string().contains("not an ATA drive"));
        assert!(outcome("IDENTIFY DEVICE", 0, 0x01, 0, &[]).is_err());
        assert_eq!(outcome("IDENTIFY DEVICE", 0, 0, 0, &[]).unwrap(), None);
    }

    #[test]
    fn truncated_and_garbage_sense_does_not_panic() {
        for len in 0..40 {
            for first in [0x70u8, 0x72, 0xF2, 0x00] {
                let mut s = vec![0xFFu8; len];
                if let Some(b) = s.first_mut() {
                    *b = first;
                }
                let _ = decode_sense(&s);
            }
        }
    }
}
