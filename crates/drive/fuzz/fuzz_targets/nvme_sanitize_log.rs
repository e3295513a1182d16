//! The Sanitize Status log: a value or an error, never a panic; progress stays in [0, 1).
#![no_main]

use drive::nvme::{SanitizeAction, SanitizeStatus};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(s) = SanitizeStatus::parse(data) {
        assert!((0.0..1.0).contains(&s.progress));
        for a in [
            SanitizeAction::BlockErase,
            SanitizeAction::CryptoErase,
            SanitizeAction::Overwrite,
        ] {
            assert_ne!(s.estimate(a), Some(u32::MAX));
        }
    }
});
