//! Why a page's query is refused (a 400 page says it): the query as a whole cannot be read,
//! or one of its values is not what its name takes.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum QueryError {
    #[error("malformed percent-encoding in the query")]
    PercentEncoding,
    #[error("the query is not UTF-8")]
    NotUtf8,
    #[error("the query holds a NUL character (%00), which no name or value has")]
    Nul,
    #[error("{name}: too long")]
    TooLong { name: String },
    /// `value`, cut to its first 40 characters, is not what `name` takes.
    #[error("{name}={value}: {expected}")]
    BadValue {
        name: String,
        value: String,
        expected: &'static str,
    },
}

impl QueryError {
    pub(crate) fn bad_value(name: &str, value: &str, expected: &'static str) -> QueryError {
        QueryError::BadValue {
            name: name.into(),
            value: value.chars().take(40).collect(),
            expected,
        }
    }
}
