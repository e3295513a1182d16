#![no_main]
include!("common.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| exercise(Format::FioIolog, data));
