//! Text for a terminal. Names and labels come from result files anyone can write; printed
//! raw, an escape sequence in one could retitle the terminal, hide lines or worse. Control
//! characters (C0, DEL, C1) and the Unicode controls that reorder text are shown escaped
//! (`\u{1b}`, `\n`), everything else as it is.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal raw.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// `s` safe to print: unsafe characters escaped as Rust writes them.
pub fn printable(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if is_unsafe(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_controls_and_keeps_the_rest() {
        assert_eq!(printable("Samsung 840 Pro µ"), "Samsung 840 Pro µ");
        assert!(matches!(printable("plain"), Cow::Borrowed(_)));
        assert_eq!(
            printable("a\u{1b}]0;pwned\u{7}b\n\u{9b}2J\u{202e}"),
            "a\\u{1b}]0;pwned\\u{7}b\\n\\u{9b}2J\\u{202e}"
        );
    }
}
