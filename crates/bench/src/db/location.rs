//! Where a Bench lives, as `--db` / `SSDLAB_DB` name it: a path (or `sqlite:PATH`) for an
//! SQLite file; for a PostgreSQL database a URL, `postgres://user@host[:port]/dbname`, or
//! libpq's `key=value` words (`host=/run/postgresql dbname=bench`). Any other `scheme://`
//! is an error, never a file named after it.
//!
//! A connection string may carry a password (`user:pw@`, `?password=`, `password=`): a
//! [`Location`] is shown (Display and Debug alike) with it replaced by `***`, so no page, log,
//! message or result can show it by accident. Only connecting reads the string itself.

use std::fmt;
use std::path::{Path, PathBuf};

use super::{BenchError, Result};

/// A Bench's place.
#[derive(Clone, PartialEq, Eq)]
pub enum Location {
    /// An SQLite file (or `:memory:`).
    Sqlite(PathBuf),
    /// A PostgreSQL database.
    Postgres(ConnectionString),
}

/// A PostgreSQL connection string (`postgres://`, `postgresql://`, or `key=value` words).
/// Shown with its password replaced by `***`.
#[derive(Clone, PartialEq, Eq)]
pub struct ConnectionString(String);

/// libpq's connection keywords: a `--db` that starts with one of them and `=` is a
/// `key=value` connection string, not a file name.
const KEYWORDS: &[&str] = &[
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "options",
    "application_name",
    "sslmode",
    "connect_timeout",
    "keepalives",
    "keepalives_idle",
    "tcp_user_timeout",
    "target_session_attrs",
    "channel_binding",
    "load_balance_hosts",
    "service",
];

impl Location {
    /// What `--db` names: `postgres://...` or `postgresql://...`, `key=value` words of
    /// libpq's keywords, `sqlite:PATH` (or `sqlite://PATH`), else a path. `scheme://` of any
    /// other scheme is refused.
    pub fn parse(db: &Path) -> Result<Location> {
        let Some(s) = db.to_str() else {
            return Ok(Location::Sqlite(db.to_path_buf()));
        };
        if let Some(rest) = s
            .strip_prefix("sqlite://")
            .or_else(|| s.strip_prefix("sqlite:"))
        {
            if rest.is_empty() {
                return Err(BenchError::Input(
                    "sqlite: names no file: give sqlite:PATH".into(),
                ));
            }
            return Ok(Location::Sqlite(PathBuf::from(rest)));
        }
        if let Some(scheme) = scheme_of(s) {
            return match scheme.to_ascii_lowercase().as_str() {
                "postgres" | "postgresql" => Ok(Location::Postgres(ConnectionString(s.into()))),
                _ => Err(BenchError::Input(format!(
                    "--db {}: unknown database scheme {scheme:?}: the Bench is an SQLite file \
                     (a path, or sqlite:PATH) or a PostgreSQL database \
                     (postgres://user@host[:port]/dbname)",
                    crate::term::printable(&redact(s))
                ))),
            };
        }
        if starts_with_keyword(s) {
            return Ok(Location::Postgres(ConnectionString(s.into())));
        }
        Ok(Location::Sqlite(db.to_path_buf()))
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(path) => path.display().fmt(f),
            Location::Postgres(c) => c.fmt(f),
        }
    }
}

impl fmt::Debug for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(path) => f.debug_tuple("Sqlite").field(path).finish(),
            Location::Postgres(c) => f.debug_tuple("Postgres").field(c).finish(),
        }
    }
}

impl ConnectionString {
    /// The driver's settings from the string (its errors name options, never values).
    pub(super) fn config(&self) -> Result<postgres::Config> {
        self.0.parse().map_err(|e| {
            BenchError::Input(format!(
                "{self}: not a PostgreSQL connection string: {e} (postgres://user@host[:port]/dbname, \
                 or key=value words such as host=/run/postgresql dbname=bench)"
            ))
        })
    }
}

impl ConnectionString {
    /// `text` (a message of the driver's) without this string or `password` in it: the
    /// driver has no reason to quote either, and if one day it did, they would be shown.
    pub(super) fn scrubbed(&self, text: &str, password: Option<&[u8]>) -> String {
        let mut text = text.replace(&self.0, &self.to_string());
        if let Some(pw) = password
            .map(String::from_utf8_lossy)
            .filter(|p| !p.is_empty())
        {
            text = text.replace(pw.as_ref(), "***");
        }
        text
    }
}

impl fmt::Display for ConnectionString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&redact(&self.0))
    }
}

impl fmt::Debug for ConnectionString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", redact(&self.0))
    }
}

/// The scheme of `scheme://...` (RFC 3986: a letter, then letters, digits, '+', '-', '.').
fn scheme_of(s: &str) -> Option<&str> {
    let (scheme, _) = s.split_once("://")?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

/// Whether `s` starts as libpq's `key=value` words do: a keyword, then `=`.
fn starts_with_keyword(s: &str) -> bool {
    s.trim_start()
        .split_once('=')
        .is_some_and(|(key, _)| KEYWORDS.contains(&key.trim_end()))
}

/// Whether a connection option holds a secret: `password`, and anything else naming a
/// pass (a misspelt key is still the user's password), in any case and percent-encoding.
fn is_secret(key: &str) -> bool {
    decode(key).to_ascii_lowercase().contains("pass")
}

/// `%XX` escapes decoded (invalid ones kept as they are).
fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = (b[i] == b'%')
            .then(|| b.get(i + 1..i + 3))
            .flatten()
            .and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
        match hex {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A connection string fit to print: every password in it (the URL's `user:pw@` and
/// `password=` options, or the `password=` word) replaced by `***`. Where the string is
/// malformed more is hidden, never less.
fn redact(s: &str) -> String {
    match scheme_of(s) {
        Some(scheme) => format!("{scheme}://{}", redact_url(&s[scheme.len() + 3..])),
        None => redact_words(s),
    }
}

/// A URL's part after `scheme://`: `password=` options (after `?` or `&`), then the
/// userinfo's password, up to the last `@` (an unescaped `@` or `/` in a password must not
/// show its end).
fn redact_url(rest: &str) -> String {
    let mut out = String::with_capacity(rest.len());
    for (i, part) in rest.split_inclusive(['?', '&']).enumerate() {
        let (body, sep) = match part.strip_suffix(['?', '&']) {
            Some(body) => (body, &part[body.len()..]),
            None => (part, ""),
        };
        match body.split_once('=') {
            Some((key, _)) if i > 0 && is_secret(key) => {
                out.push_str(key);
                out.push_str("=***");
            }
            _ => out.push_str(body),
        }
        out.push_str(sep);
    }
    if let Some(at) = out.rfind('@') {
        if let Some(colon) = out[..at].find(':') {
            out.replace_range(colon + 1..at, "***");
        }
    }
    out
}

/// libpq's `key = value` words, read as the driver reads them (values plain with `\`
/// escapes, or quoted in `'`); a secret's value is `***`. Past anything that is not a word,
/// the rest is hidden if it names a secret.
fn redact_words(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    let skip_ws = |t: &str| t.len() - t.trim_start().len();
    loop {
        let ws = skip_ws(rest);
        out.push_str(&rest[..ws]);
        rest = &rest[ws..];
        if rest.is_empty() {
            return out;
        }
        let key_len = rest
            .find(|c: char| c.is_whitespace() || c == '=')
            .unwrap_or(rest.len());
        let key = &rest[..key_len];
        let ws = skip_ws(&rest[key_len..]);
        let Some(after_eq) = rest[key_len + ws..].strip_prefix('=') else {
            out.push_str(if is_secret(rest) { "***" } else { rest });
            return out;
        };
        let head = key_len + ws + 1 + skip_ws(after_eq);
        out.push_str(&rest[..head]);
        rest = &rest[head..];
        let value_len = word_value_len(rest);
        out.push_str(if is_secret(key) {
            "***"
        } else {
            &rest[..value_len]
        });
        rest = &rest[value_len..];
    }
}

/// The length of the value `s` starts with: up to whitespace, or a quoted one with its
/// quotes (all of `s` if the quote is never closed); `\` escapes the next character.
fn word_value_len(s: &str) -> usize {
    let quoted = s.starts_with('\'');
    let mut chars = s.char_indices().skip(quoted as usize);
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '\'' if quoted => return i + 1,
            c if c.is_whitespace() && !quoted => return i,
            _ => {}
        }
    }
    s.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Location> {
        Location::parse(Path::new(s))
    }

    fn postgres(s: &str) -> Location {
        Location::Postgres(ConnectionString(s.into()))
    }

    #[test]
    fn paths_sqlite_and_postgres_are_known_and_other_schemes_are_errors() {
        assert_eq!(
            parse("bench.db").unwrap(),
            Location::Sqlite("bench.db".into())
        );
        assert_eq!(
            parse("sqlite:/tmp/b.db").unwrap(),
            Location::Sqlite("/tmp/b.db".into())
        );
        assert_eq!(
            parse("sqlite:///tmp/b.db").unwrap(),
            Location::Sqlite("/tmp/b.db".into())
        );
        assert_eq!(
            parse("postgres://u@h:5432/bench").unwrap(),
            postgres("postgres://u@h:5432/bench")
        );
        assert!(matches!(
            parse("postgresql://u@h/b").unwrap(),
            Location::Postgres(_)
        ));
        assert_eq!(
            parse("host=/tmp dbname=b").unwrap(),
            postgres("host=/tmp dbname=b")
        );
        assert_eq!(parse(" dbname = b").unwrap(), postgres(" dbname = b"));
        assert_eq!(parse("a=b.db").unwrap(), Location::Sqlite("a=b.db".into()));
        for bad in ["mysql://u@h/b", "http://h/b", "file://x", "sqlite:"] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(
                e.contains("scheme") || e.contains("sqlite:PATH"),
                "{bad}: {e}"
            );
        }
        let e = parse("mysql://u:secret@h/b").unwrap_err().to_string();
        assert!(!e.contains("secret"), "{e}");
        // A directory with "://" inside its path is not a scheme.
        assert!(matches!(parse("./a://b").unwrap(), Location::Sqlite(_)));
    }

    /// Every form of a password, shown: none of it is left.
    #[test]
    fn passwords_are_never_shown() {
        for (given, shown) in [
            ("postgres://u:pw@h:5/db?x=1", "postgres://u:***@h:5/db?x=1"),
            ("postgres://u@h/db", "postgres://u@h/db"),
            (
                "postgres:///bench?host=/tmp&user=lab&password=S3cret",
                "postgres:///bench?host=/tmp&user=lab&password=***",
            ),
            (
                "postgresql:///b?PASSWORD=S3cret&host=/tmp",
                "postgresql:///b?PASSWORD=***&host=/tmp",
            ),
            (
                "postgres:///b?pass%77ord=S3cret",
                "postgres:///b?pass%77ord=***",
            ),
            (
                "postgres:///b?%70assword=S3cret",
                "postgres:///b?%70assword=***",
            ),
            ("postgres://u:S3c@ret@h/b", "postgres://u:***@h/b"),
            ("postgres://u:S3c/ret@h/b", "postgres://u:***@h/b"),
            ("postgres://u:S3c?ret@h/b", "postgres://u:***@h/b"),
            (
                "host=/tmp password=S3cret dbname=b",
                "host=/tmp password=*** dbname=b",
            ),
            (
                "host=/tmp password = 'S3c ret\\' x' dbname=b",
                "host=/tmp password = *** dbname=b",
            ),
            ("password='S3cret", "password=***"),
            ("password=S3c\\ ret user=u", "password=*** user=u"),
            ("user=u S3cret password", "user=u ***"),
            (
                "host=/tmp password=S3cret options=a://b",
                "host=/tmp password=*** options=a://b",
            ),
        ] {
            let location = parse(given).unwrap();
            assert_eq!(location.to_string(), shown, "{given}");
            let debug = format!("{location:?}");
            assert!(!debug.contains("S3c") && !debug.contains("ret"), "{debug}");
        }
    }

    #[test]
    fn a_malformed_string_names_the_forms_and_not_the_password() {
        let Location::Postgres(c) = parse("host=/tmp password='S3cret port=x").unwrap() else {
            panic!("a connection string");
        };
        let e = c.config().unwrap_err().to_string();
        assert!(!e.contains("S3cret") && e.contains("postgres://"), "{e}");
    }
}
