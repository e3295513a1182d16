//! The SMART / Health log: a value or an error, never a panic; the health snapshot and its
//! delta with itself hold.
#![no_main]

use drive::nvme::SmartLog;
use drive::Health;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(s) = SmartLog::parse(data) {
        assert!(s.temperature_c >= -273);
        let h = Health::from_nvme(s);
        let d = Health::delta(&h, &h);
        assert_eq!(d.host_bytes_written, Some(0));
        assert_eq!(d.write_amplification(), None);
    }
});
