#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = trace::detect::detect_bytes(data);
});
