//! SCSI sense data in any format: decoded or None, never a panic; the ATA registers and the
//! sanitize status read from them keep their ranges.
#![no_main]

use drive::ata::passthru::outcome;
use drive::ata::{decode_sense, AtaSanitizeStatus};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Some(sense) = decode_sense(data) {
        if let Some(regs) = sense.ata {
            assert!(regs.lba < 1 << 48);
            let s = AtaSanitizeStatus::from_registers(&regs);
            assert!((0.0..1.0).contains(&s.progress));
            let _ = regs.describe();
        }
    }
    let _ = outcome("fuzz", 2, 0, 0x08, data);
});
