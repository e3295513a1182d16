//! SMART READ DATA: the first 512 bytes are the data, the rest the model string that picks
//! the vendor conventions. A value or an error, never a panic.
#![no_main]

use drive::ata::SmartData;
use drive::Health;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (smart, model) = data.split_at(data.len().min(512));
    let model = String::from_utf8_lossy(model);
    if let Ok(s) = SmartData::parse(smart) {
        assert!(s.attributes.len() <= 30);
        assert!(s.attributes.iter().all(|a| a.raw < 1 << 48));
        let h = Health::from_ata(&model, s);
        let _ = Health::delta(&h, &h).write_amplification();
    }
});
