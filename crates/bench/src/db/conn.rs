//! One connection, to SQLite or to PostgreSQL, and the little the Bench asks of it: run a
//! statement with parameters, read rows of plain values, begin and end a transaction.
//!
//! Statements are written once, in the SQL both dialects agree on, with `?1`-style
//! parameters (PostgreSQL gets `$1`). Where they disagree (the schema's column types, how
//! the schema version is kept, locks, integrity checks) the caller says which it is.

use std::error::Error as StdError;

use bytes::BytesMut;
use postgres::types::{IsNull, ToSql, Type};

use super::{BenchError, Result};

/// A value of a row or a parameter.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}
impl From<bool> for Value {
    fn from(v: bool) -> Value {
        Value::Int(v.into())
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Real(v)
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}
impl From<&String> for Value {
    fn from(v: &String) -> Value {
        Value::Text(v.clone())
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_string())
    }
}
impl From<&Option<String>> for Value {
    fn from(v: &Option<String>) -> Value {
        v.as_ref().map_or(Value::Null, Value::from)
    }
}
impl From<&Option<f64>> for Value {
    fn from(v: &Option<f64>) -> Value {
        v.map_or(Value::Null, Value::Real)
    }
}
impl From<&f64> for Value {
    fn from(v: &f64) -> Value {
        Value::Real(*v)
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

/// What may be a parameter (borrowed: `params!` takes its arguments by reference).
pub(crate) trait ToValue {
    fn to_value(&self) -> Value;
}
impl ToValue for i64 {
    fn to_value(&self) -> Value {
        Value::Int(*self)
    }
}
impl ToValue for bool {
    fn to_value(&self) -> Value {
        Value::Int((*self).into())
    }
}
impl ToValue for f64 {
    fn to_value(&self) -> Value {
        Value::Real(*self)
    }
}
impl ToValue for str {
    fn to_value(&self) -> Value {
        Value::Text(self.to_string())
    }
}
impl ToValue for String {
    fn to_value(&self) -> Value {
        Value::Text(self.clone())
    }
}
impl ToValue for Value {
    fn to_value(&self) -> Value {
        self.clone()
    }
}
impl<T: ToValue + ?Sized> ToValue for &T {
    fn to_value(&self) -> Value {
        (**self).to_value()
    }
}
impl<T: ToValue> ToValue for Option<T> {
    fn to_value(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToValue::to_value)
    }
}

/// Parameters as `params![a, b, ...]` builds them (by reference).
macro_rules! params {
    ($($v:expr),* $(,)?) => { &[$($crate::db::conn::ToValue::to_value(&$v)),*][..] };
}
pub(crate) use params;

/// A type a column is read as.
pub(crate) trait FromValue: Sized {
    fn from_value(v: &Value) -> Option<Self>;
}
impl FromValue for i64 {
    fn from_value(v: &Value) -> Option<i64> {
        match v {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
}
impl FromValue for u32 {
    fn from_value(v: &Value) -> Option<u32> {
        i64::from_value(v).and_then(|i| u32::try_from(i).ok())
    }
}
impl FromValue for bool {
    fn from_value(v: &Value) -> Option<bool> {
        i64::from_value(v).map(|i| i != 0)
    }
}
impl FromValue for f64 {
    fn from_value(v: &Value) -> Option<f64> {
        match v {
            Value::Real(f) => Some(*f),
            Value::Int(i) => Some(*i as f64),
            _ => None,
        }
    }
}
impl FromValue for String {
    fn from_value(v: &Value) -> Option<String> {
        match v {
            Value::Text(s) => Some(s.clone()),
            _ => None,
        }
    }
}
impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: &Value) -> Option<Option<T>> {
        match v {
            Value::Null => Some(None),
            v => T::from_value(v).map(Some),
        }
    }
}

/// A row read.
#[derive(Clone, Debug)]
pub(crate) struct Row(pub Vec<Value>);

impl Row {
    pub fn get<T: FromValue>(&self, i: usize) -> Result<T> {
        let v = self.0.get(i).unwrap_or(&Value::Null);
        T::from_value(v).ok_or_else(|| {
            BenchError::Input(format!(
                "the Bench holds {v:?} where a {} belongs (column {i})",
                std::any::type_name::<T>()
            ))
        })
    }
}

/// A connection to either database.
pub(crate) enum Conn {
    Sqlite(rusqlite::Connection),
    Postgres(postgres::Client),
}

impl Conn {
    pub fn is_postgres(&self) -> bool {
        matches!(self, Conn::Postgres(_))
    }

    /// Run statements without parameters or rows (the schema).
    pub fn batch(&mut self, sql: &str) -> Result<()> {
        match self {
            Conn::Sqlite(c) => c.execute_batch(sql)?,
            Conn::Postgres(c) => c.batch_execute(sql)?,
        }
        Ok(())
    }

    pub fn execute(&mut self, sql: &str, params: &[Value]) -> Result<u64> {
        match self {
            Conn::Sqlite(c) => {
                let mut q = c.prepare_cached(sql)?;
                Ok(q.execute(rusqlite::params_from_iter(params.iter()))? as u64)
            }
            Conn::Postgres(c) => {
                let p: Vec<&(dyn ToSql + Sync)> =
                    params.iter().map(|v| v as &(dyn ToSql + Sync)).collect();
                Ok(c.execute(dollars(sql).as_str(), &p)?)
            }
        }
    }

    pub fn query(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>> {
        match self {
            Conn::Sqlite(c) => {
                let mut q = c.prepare_cached(sql)?;
                let n = q.column_count();
                let rows = q.query_map(rusqlite::params_from_iter(params.iter()), |r| {
                    (0..n)
                        .map(|i| {
                            Ok(match r.get_ref(i)? {
                                rusqlite::types::ValueRef::Null => Value::Null,
                                rusqlite::types::ValueRef::Integer(i) => Value::Int(i),
                                rusqlite::types::ValueRef::Real(f) => Value::Real(f),
                                rusqlite::types::ValueRef::Text(t)
                                | rusqlite::types::ValueRef::Blob(t) => {
                                    Value::Text(String::from_utf8_lossy(t).into_owned())
                                }
                            })
                        })
                        .collect::<rusqlite::Result<Vec<Value>>>()
                        .map(Row)
                })?;
                Ok(rows.collect::<rusqlite::Result<_>>()?)
            }
            Conn::Postgres(c) => {
                let p: Vec<&(dyn ToSql + Sync)> =
                    params.iter().map(|v| v as &(dyn ToSql + Sync)).collect();
                let rows = c.query(dollars(sql).as_str(), &p)?;
                rows.iter().map(pg_row).collect()
            }
        }
    }

    /// The one row a statement returns, if any.
    pub fn query_opt(&mut self, sql: &str, params: &[Value]) -> Result<Option<Row>> {
        Ok(self.query(sql, params)?.into_iter().next())
    }

    /// The one row a statement must return.
    pub fn query_one(&mut self, sql: &str, params: &[Value]) -> Result<Row> {
        self.query_opt(sql, params)?
            .ok_or_else(|| BenchError::Input(format!("no row for {sql}")))
    }

    /// Begin a transaction that writes: SQLite takes its write lock now (so two writers
    /// never deadlock upgrading), PostgreSQL runs at READ COMMITTED.
    pub fn begin_write(&mut self) -> Result<Tx<'_>> {
        match self {
            Conn::Sqlite(c) => c.execute_batch("BEGIN IMMEDIATE")?,
            Conn::Postgres(c) => c.batch_execute("BEGIN")?,
        }
        Ok(Tx {
            conn: self,
            done: false,
        })
    }
}

/// A transaction: committed by `commit`, rolled back if dropped before.
pub(crate) struct Tx<'a> {
    conn: &'a mut Conn,
    done: bool,
}

impl Tx<'_> {
    pub fn commit(mut self) -> Result<()> {
        self.done = true;
        self.conn.batch("COMMIT")
    }
}

impl std::ops::Deref for Tx<'_> {
    type Target = Conn;
    fn deref(&self) -> &Conn {
        self.conn
    }
}

impl std::ops::DerefMut for Tx<'_> {
    fn deref_mut(&mut self) -> &mut Conn {
        self.conn
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if !self.done {
            let _ = self.conn.batch("ROLLBACK");
        }
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match self {
            Value::Null => ValueRef::Null,
            Value::Int(i) => ValueRef::Integer(*i),
            Value::Real(f) => ValueRef::Real(*f),
            Value::Text(s) => ValueRef::Text(s.as_bytes()),
        }))
    }
}

type BoxError = Box<dyn StdError + Sync + Send>;

impl ToSql for Value {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> std::result::Result<IsNull, BoxError> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(i) => match *ty {
                Type::INT2 => i16::try_from(*i)?.to_sql(ty, out),
                Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
                Type::FLOAT8 => (*i as f64).to_sql(ty, out),
                Type::BOOL => (*i != 0).to_sql(ty, out),
                _ => i.to_sql(ty, out),
            },
            Value::Real(f) => match *ty {
                Type::FLOAT4 => (*f as f32).to_sql(ty, out),
                _ => f.to_sql(ty, out),
            },
            Value::Text(s) => s.as_str().to_sql(ty, out),
        }
    }

    fn accepts(ty: &Type) -> bool {
        matches!(
            *ty,
            Type::INT2
                | Type::INT4
                | Type::INT8
                | Type::FLOAT4
                | Type::FLOAT8
                | Type::BOOL
                | Type::TEXT
                | Type::VARCHAR
                | Type::BPCHAR
                | Type::NAME
                | Type::UNKNOWN
        )
    }

    postgres::types::to_sql_checked!();
}

fn pg_row(r: &postgres::Row) -> Result<Row> {
    let mut out = Vec::with_capacity(r.len());
    for (i, c) in r.columns().iter().enumerate() {
        let v = match *c.type_() {
            Type::INT8 => r.try_get::<_, Option<i64>>(i)?.map(Value::Int),
            Type::INT4 => r
                .try_get::<_, Option<i32>>(i)?
                .map(|v| Value::Int(v.into())),
            Type::INT2 => r
                .try_get::<_, Option<i16>>(i)?
                .map(|v| Value::Int(v.into())),
            Type::BOOL => r
                .try_get::<_, Option<bool>>(i)?
                .map(|v| Value::Int(v.into())),
            Type::FLOAT8 => r.try_get::<_, Option<f64>>(i)?.map(Value::Real),
            Type::FLOAT4 => r
                .try_get::<_, Option<f32>>(i)?
                .map(|v| Value::Real(v.into())),
            _ => r.try_get::<_, Option<String>>(i)?.map(Value::Text),
        };
        out.push(v.unwrap_or(Value::Null));
    }
    Ok(Row(out))
}

/// `?N` parameters as PostgreSQL writes them, `$N` (outside quoted text).
pub(crate) fn dollars(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut quoted = false;
    for c in sql.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                out.push(c);
            }
            '?' if !quoted => out.push('$'),
            c => out.push(c),
        }
    }
    out
}

/// A migration of the schema as PostgreSQL takes it: row ids are identity columns, integers
/// 64-bit, reals double precision, and no `WITHOUT ROWID`.
pub(crate) fn postgres_ddl(sql: &str) -> String {
    let sql = sql
        .replace(
            "id INTEGER PRIMARY KEY,",
            "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,",
        )
        .replace(") WITHOUT ROWID;", ");");
    // Whole words only.
    let mut out = String::with_capacity(sql.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(match word.as_str() {
            "INTEGER" => "BIGINT",
            "REAL" => "DOUBLE PRECISION",
            w => w,
        });
        word.clear();
    };
    for c in sql.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_and_types_become_postgres() {
        assert_eq!(
            dollars("SELECT '?' , x FROM t WHERE a = ?1 AND b = ?12"),
            "SELECT '?' , x FROM t WHERE a = $1 AND b = $12"
        );
        let ddl = postgres_ddl(
            "CREATE TABLE t (\n id INTEGER PRIMARY KEY,\n d INTEGER PRIMARY KEY REFERENCES x(id),\n r REAL, interval_s REAL NOT NULL\n) WITHOUT ROWID;",
        );
        assert_eq!(
            ddl,
            "CREATE TABLE t (\n id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,\n d BIGINT PRIMARY KEY REFERENCES x(id),\n r DOUBLE PRECISION, interval_s DOUBLE PRECISION NOT NULL\n);"
        );
    }
}
