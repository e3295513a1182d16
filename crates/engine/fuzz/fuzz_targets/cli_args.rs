//! The parsers behind --bs, --span, --offset, --bytes and --duration (and file:PATH:SIZE):
//! any input ends in a value or an error, never a panic, and every value keeps its promises.
#![no_main]

use engine::size::{parse_duration, parse_size, Span, MAX_DURATION_S};
use engine::units::format_size;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(n) = parse_size(text) {
        // A size parses back exactly from its plain byte count.
        assert_eq!(parse_size(&n.to_string()), Ok(n), "{text:?}");
        let _ = format_size(n);
    }
    if let Ok(s) = parse_duration(text) {
        assert!(s > 0.0 && s <= MAX_DURATION_S, "{text:?} -> {s}");
    }
    if let Ok(span) = Span::parse(text) {
        if let Span::Percent(p) = span {
            assert!(p > 0.0 && p <= 100.0, "{text:?} -> {p}");
        }
        for capacity in [0, 4096, (1 << 54) + 3, u64::MAX] {
            for align in [1, 512, 4096, 1 << 20] {
                let b = span.resolve(capacity, align);
                assert!(b <= capacity && b % align == 0, "{text:?} on {capacity}/{align}: {b}");
            }
        }
    }
});
