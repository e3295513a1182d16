//! Properties of the command line's parsers (engine::size: --bs, --span, --offset, --bytes,
//! --duration and file:PATH:SIZE), over 256 generated cases each: exact values, no panics,
//! and values that keep their promises. crates/engine/fuzz fuzzes the same parsers.

use engine::size::{parse_duration, parse_size, Span, MAX_DURATION_S};
use engine::units::format_size;
use proptest::prelude::*;

const UNITS: [(&str, u64); 13] = [
    ("", 1),
    ("b", 1),
    ("K", 1 << 10),
    ("k", 1 << 10),
    ("KB", 1 << 10),
    ("KiB", 1 << 10),
    ("M", 1 << 20),
    ("MiB", 1 << 20),
    ("G", 1 << 30),
    ("gb", 1 << 30),
    ("GiB", 1 << 30),
    ("T", 1 << 40),
    ("TiB", 1 << 40),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_byte_count_parses_exactly(n in any::<u64>()) {
        prop_assert_eq!(parse_size(&n.to_string()), Ok(n));
        prop_assert_eq!(parse_size(&format!(" {n} ")), Ok(n));
    }

    #[test]
    fn a_number_with_a_unit_is_exact_or_out_of_range(n in any::<u64>(), u in 0..UNITS.len()) {
        let (unit, mult) = UNITS[u];
        let got = parse_size(&format!("{n}{unit}"));
        match n.checked_mul(mult) {
            Some(bytes) => prop_assert_eq!(got, Ok(bytes)),
            None => prop_assert!(got.unwrap_err().to_string().contains("out of range")),
        }
    }

    #[test]
    fn fractions_must_come_to_whole_bytes(whole in 0u64..1 << 20, tenths in 0u64..10, u in 2..UNITS.len()) {
        let (unit, mult) = UNITS[u];
        let got = parse_size(&format!("{whole}.{tenths}{unit}"));
        let exact = whole * mult + tenths * mult / 10;
        if (tenths * mult) % 10 == 0 {
            prop_assert_eq!(got, Ok(exact));
        } else {
            prop_assert!(got.unwrap_err().to_string().contains("whole number of bytes"));
        }
    }

    #[test]
    fn powers_of_1024_print_and_parse_back(k in 1u64..1024, u in 0u32..5) {
        let n = k << (10 * u);
        let shown = format_size(n);
        prop_assert_eq!(parse_size(&shown.replace(' ', "")), Ok(n), "{}", shown);
    }

    #[test]
    fn any_text_is_a_size_or_an_error(text in "\\PC{0,24}") {
        if let Ok(n) = parse_size(&text) {
            prop_assert_eq!(parse_size(&n.to_string()), Ok(n));
        }
    }

    #[test]
    fn durations_parse_exactly_within_a_year(s in 1e-6f64..=MAX_DURATION_S) {
        prop_assert_eq!(parse_duration(&s.to_string()), Ok(s));
        prop_assert_eq!(parse_duration(&format!("{s}s")), Ok(s));
        let minutes = s / 60.0;
        let got = parse_duration(&format!("{minutes}m")).unwrap();
        prop_assert!((got - s).abs() <= s * 1e-12);
    }

    #[test]
    fn durations_beyond_a_year_or_not_positive_are_refused(s in prop_oneof![
        MAX_DURATION_S * 1.000001..1e300f64,
        -1e300f64..=0.0,
    ]) {
        let e = parse_duration(&s.to_string()).unwrap_err().to_string();
        prop_assert!(e.contains("at most") || e.contains("positive"), "{}", e);
    }

    #[test]
    fn any_text_is_a_duration_in_range_or_an_error(text in "\\PC{0,24}") {
        if let Ok(s) = parse_duration(&text) {
            prop_assert!(s > 0.0 && s <= MAX_DURATION_S);
        }
    }

    #[test]
    fn spans_resolve_inside_the_target_on_the_block_grid(
        text in prop_oneof![
            Just("100%".to_string()),
            (0.0001f64..=100.0).prop_map(|p| format!("{p}%")),
            any::<u64>().prop_map(|n| n.to_string()),
            "\\PC{0,12}",
        ],
        capacity in prop_oneof![any::<u64>(), 0u64..1 << 40, Just(u64::MAX), Just((1 << 54) + 3)],
        align in prop_oneof![Just(1u64), Just(512), Just(4096), 1u64..1 << 30],
    ) {
        if let Ok(span) = Span::parse(&text) {
            if let Span::Percent(p) = span {
                prop_assert!(p > 0.0 && p <= 100.0);
            }
            let b = span.resolve(capacity, align);
            prop_assert!(b <= capacity, "{:?} on {}: {}", span, capacity, b);
            prop_assert_eq!(b % align, 0);
        }
    }
}
