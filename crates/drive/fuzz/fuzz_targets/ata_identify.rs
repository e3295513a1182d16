//! IDENTIFY DEVICE: a value or an error, never a panic; the summary and plans build.
#![no_main]

use drive::ata::IdentifyDevice;
use drive::{plan, Identify, PurgeMethod};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(d) = IdentifyDevice::parse(data) {
        assert!(d.logical_sector_size >= 512);
        let _ = d.capacity_bytes();
        let id = Identify::from_ata(d);
        let _ = id.summary();
        for m in PurgeMethod::ALL {
            let _ = plan(&id, m);
        }
    }
});
