//! Where a Bench lives, as `--db` / `SSDLAB_DB` name it: a path (or `sqlite:PATH`) for an
//! SQLite file, `postgres://user@host[:port]/dbname` for a PostgreSQL database. Any other
//! `scheme://` is an error, never a file named after it.

use std::path::{Path, PathBuf};

use super::{BenchError, Result};

/// A Bench's place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// An SQLite file (or `:memory:`).
    Sqlite(PathBuf),
    /// A PostgreSQL connection string (`postgres://` or `postgresql://`).
    Postgres(String),
}

impl Location {
    /// What `--db` names: `postgres://...` or `postgresql://...`, `sqlite:PATH` (or
    /// `sqlite://PATH`), else a path. `scheme://` of any other scheme is refused.
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
                "postgres" | "postgresql" => Ok(Location::Postgres(s.to_string())),
                _ => Err(BenchError::Input(format!(
                    "--db {}: unknown database scheme {scheme:?}: the Bench is an SQLite file \
                     (a path, or sqlite:PATH) or a PostgreSQL database \
                     (postgres://user@host[:port]/dbname)",
                    crate::term::printable(&redacted(s))
                ))),
            };
        }
        Ok(Location::Sqlite(db.to_path_buf()))
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

/// A connection string fit to print: a password in it is replaced by `***`.
pub fn redacted(s: &str) -> String {
    let Some((scheme, rest)) = s.split_once("://") else {
        return s.to_string();
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}{tail}"),
            None => s.to_string(),
        },
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Location> {
        Location::parse(Path::new(s))
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
            Location::Postgres("postgres://u@h:5432/bench".into())
        );
        assert!(matches!(
            parse("postgresql://u@h/b").unwrap(),
            Location::Postgres(_)
        ));
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

    #[test]
    fn passwords_are_never_printed() {
        assert_eq!(
            redacted("postgres://u:pw@h:5/db?x=1"),
            "postgres://u:***@h:5/db?x=1"
        );
        assert_eq!(redacted("postgres://u@h/db"), "postgres://u@h/db");
    }
}
