//! Little-endian field readers that never panic: a field past the end reads as zero (the
//! parsers check lengths first; this only makes an out-of-range offset harmless).

pub(crate) fn u8_at(b: &[u8], at: usize) -> u8 {
    b.get(at).copied().unwrap_or(0)
}

fn le<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    let mut out = [0u8; N];
    if let Some(s) = at.checked_add(N).and_then(|end| b.get(at..end)) {
        out.copy_from_slice(s);
    }
    out
}

pub(crate) fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(le(b, at))
}

pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(le(b, at))
}

pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(le(b, at))
}

pub(crate) fn u128_at(b: &[u8], at: usize) -> u128 {
    u128::from_le_bytes(le(b, at))
}

/// 48 bits, little endian (ATA SMART raw values, ATA LBAs).
pub(crate) fn u48_at(b: &[u8], at: usize) -> u64 {
    let mut v = [0u8; 8];
    v[..6].copy_from_slice(&le::<6>(b, at));
    u64::from_le_bytes(v)
}

/// An ASCII field padded with spaces (NVMe model, serial, firmware), trimmed; bytes outside
/// printable ASCII become '?' so that a broken drive cannot put control characters on a
/// terminal.
pub(crate) fn ascii(b: &[u8]) -> String {
    let s: String = b
        .iter()
        .map(|&c| {
            if (0x20..0x7f).contains(&c) {
                c as char
            } else if c == 0 {
                ' '
            } else {
                '?'
            }
        })
        .collect();
    s.trim().to_string()
}

pub(crate) fn bit(v: u64, n: u32) -> bool {
    n < 64 && (v >> n) & 1 == 1
}
