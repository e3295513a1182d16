#![no_main]
// blktrace per-CPU files are read from disk: split the input into two CPU files (the first
// byte picks the split point) so the time merge across files is exercised too.
use std::io::Write;

use trace::open_with;
include!("common.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&cut, rest)) = data.split_first() else { return };
    let cut = (cut as usize * rest.len() / 255).min(rest.len());
    let dir = std::env::temp_dir().join(format!("ssdlab-fuzz-blktrace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (cpu, part) in [&rest[..cut], &rest[cut..]].into_iter().enumerate() {
        let mut f = std::fs::File::create(dir.join(format!("fuzz.blktrace.{cpu}"))).unwrap();
        f.write_all(part).unwrap();
    }
    let opts = ReadOptions {
        format: Some(Format::Blktrace),
        skip_bad: false,
    };
    if let Ok(reader) = open_with(&dir.join("fuzz"), opts) {
        digest(reader);
    }
});
