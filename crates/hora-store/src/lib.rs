//! The embedded SQLite engine behind the service's store interface.
//!
//! The store's schema and queries live in TypeScript (`src/store/sqlite.ts`); this crate only runs
//! parameterised SQL on one connection, so the SQL dialect is the one seam to replace when a shared
//! store arrives.

use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{params_from_iter, Connection, OpenFlags};
use serde_json::{Map, Number, Value};
use std::sync::Mutex;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A UNIQUE or PRIMARY KEY constraint refused the row: one with that key already exists.
    #[error("sqlite: {0}")]
    Conflict(rusqlite::Error),
    #[error("sqlite: {0}")]
    Sqlite(rusqlite::Error),
    #[error("unsupported parameter at position {0}: only null, booleans, numbers and strings bind")]
    Param(usize),
    #[error("store connection poisoned by an earlier panic")]
    Poisoned,
    #[error("the column read as bytes holds a number")]
    NotBytes,
    #[error("the store is closed")]
    Closed,
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        // Told apart by SQLite's extended code, so callers never read the message.
        let unique = [rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE, rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY];
        match e.sqlite_error() {
            Some(f) if unique.contains(&f.extended_code) => StoreError::Conflict(e),
            _ => StoreError::Sqlite(e),
        }
    }
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// Rows changed and the last inserted rowid of one statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunOutcome {
    pub changes: u64,
    pub last_insert_rowid: i64,
}

pub struct Db {
    /// None once closed.
    conn: Mutex<Option<Connection>>,
}

impl Db {
    /// Opens (creating when absent) the database file, in WAL mode so that the operator CLI can
    /// write while a server reads.
    pub fn open(path: &str) -> Result<Db> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags)?;
        conn.busy_timeout(Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        Ok(Db { conn: Mutex::new(Some(conn)) })
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Option<Connection>>> {
        self.conn.lock().map_err(|_| StoreError::Poisoned)
    }

    /// Closes the connection now (checkpointing the WAL as SQLite does on a last close) rather
    /// than when the object is collected; later calls fail with `Closed`. Closing twice is fine.
    pub fn close(&self) -> Result<()> {
        match self.lock()?.take() {
            Some(conn) => conn.close().map_err(|(_, e)| e.into()),
            None => Ok(()),
        }
    }

    /// Runs a batch of statements without parameters (migrations, BEGIN/COMMIT).
    pub fn exec(&self, sql: &str) -> Result<()> {
        let guard = self.lock()?;
        Ok(open(&guard)?.execute_batch(sql)?)
    }

    /// Runs one statement and returns its rows as JSON objects keyed by column name.
    pub fn query(&self, sql: &str, params: &[Value]) -> Result<Vec<Value>> {
        let guard = self.lock()?;
        let conn = open(&guard)?;
        let mut stmt = conn.prepare_cached(sql)?;
        let names: Vec<String> = stmt.column_names().map(|s| s.to_string()).collect();
        let mut rows = stmt.query(params_from_iter(bind(params)?))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            let mut obj = Map::with_capacity(names.len());
            for (i, name) in names.iter().enumerate() {
                obj.insert(name.clone(), to_json(row.get_ref(i)?));
            }
            out.push(Value::Object(obj));
        }
        Ok(out)
    }

    /// Runs one statement that returns no rows.
    pub fn run(&self, sql: &str, params: &[Value]) -> Result<RunOutcome> {
        self.run_bound(sql, bind(params)?)
    }

    /// `run` with `bytes` bound as a BLOB after `params` (JSON has no bytes).
    pub fn run_with_blob(&self, sql: &str, params: &[Value], bytes: &[u8]) -> Result<RunOutcome> {
        let mut bound = bind(params)?;
        bound.push(SqlValue::Blob(bytes.to_vec()));
        self.run_bound(sql, bound)
    }

    /// The first column of the first row as bytes (a BLOB, or a TEXT's UTF-8), None without a row.
    pub fn query_blob(&self, sql: &str, params: &[Value]) -> Result<Option<Vec<u8>>> {
        let guard = self.lock()?;
        let conn = open(&guard)?;
        let mut stmt = conn.prepare_cached(sql)?;
        let mut rows = stmt.query(params_from_iter(bind(params)?))?;
        let Some(row) = rows.next()? else { return Ok(None) };
        Ok(Some(match row.get_ref(0)? {
            ValueRef::Blob(b) | ValueRef::Text(b) => b.to_vec(),
            ValueRef::Null => Vec::new(),
            _ => return Err(StoreError::NotBytes),
        }))
    }

    fn run_bound(&self, sql: &str, bound: Vec<SqlValue>) -> Result<RunOutcome> {
        let guard = self.lock()?;
        let conn = open(&guard)?;
        let mut stmt = conn.prepare_cached(sql)?;
        let changes = stmt.execute(params_from_iter(bound))? as u64;
        Ok(RunOutcome { changes, last_insert_rowid: conn.last_insert_rowid() })
    }
}

fn open(guard: &Option<Connection>) -> Result<&Connection> {
    guard.as_ref().ok_or(StoreError::Closed)
}

fn bind(params: &[Value]) -> Result<Vec<SqlValue>> {
    params
        .iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::Null => Ok(SqlValue::Null),
            Value::Bool(b) => Ok(SqlValue::Integer(*b as i64)),
            Value::Number(n) => match n.as_i64() {
                Some(i) => Ok(SqlValue::Integer(i)),
                None => n.as_f64().map(SqlValue::Real).ok_or(StoreError::Param(i)),
            },
            Value::String(s) => Ok(SqlValue::Text(s.clone())),
            _ => Err(StoreError::Param(i)),
        })
        .collect()
}

fn to_json(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::Number(i.into()),
        ValueRef::Real(f) => Number::from_f64(f).map(Value::Number).unwrap_or(Value::Null),
        ValueRef::Text(t) => Value::String(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::String(String::from_utf8_lossy(b).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bytes_bind_as_a_blob_and_come_back_unchanged() {
        let db = Db::open(":memory:").unwrap();
        db.exec("CREATE TABLE b (k INTEGER, data BLOB)").unwrap();
        let bytes: Vec<u8> = (0..=255u8).chain([0xff, 0x00, 0xc3]).collect();
        db.run_with_blob("INSERT INTO b VALUES (?, ?)", &[json!(1)], &bytes).unwrap();
        assert_eq!(db.query_blob("SELECT data FROM b WHERE k = ?", &[json!(1)]).unwrap(), Some(bytes));
        assert_eq!(db.query_blob("SELECT typeof(data) FROM b", &[]).unwrap(), Some(b"blob".to_vec()));
        assert_eq!(db.query_blob("SELECT data FROM b WHERE k = ?", &[json!(2)]).unwrap(), None);
    }

    #[test]
    fn run_then_query_round_trips_typed_values() {
        let db = Db::open(":memory:").unwrap();
        db.exec("CREATE TABLE t (a INTEGER, b REAL, c TEXT, d INTEGER)").unwrap();
        let out = db.run("INSERT INTO t VALUES (?, ?, ?, ?)", &[json!(7), json!(1.5), json!("x"), Value::Null]).unwrap();
        assert_eq!(out.changes, 1);
        let rows = db.query("SELECT a, b, c, d FROM t WHERE a = ?", &[json!(7)]).unwrap();
        assert_eq!(rows, vec![json!({"a": 7, "b": 1.5, "c": "x", "d": null})]);
    }

    #[test]
    fn close_ends_the_connection_and_what_it_wrote_stays() {
        let path = std::env::temp_dir().join(format!("hora-store-close-{}.sqlite", std::process::id()));
        let path = path.to_str().unwrap();
        let db = Db::open(path).unwrap();
        db.exec("CREATE TABLE t (a INTEGER)").unwrap();
        db.run("INSERT INTO t VALUES (?)", &[json!(1)]).unwrap();
        db.close().unwrap();
        db.close().unwrap();
        assert!(matches!(db.query("SELECT a FROM t", &[]), Err(StoreError::Closed)));
        assert!(matches!(db.exec("SELECT 1"), Err(StoreError::Closed)));
        let again = Db::open(path).unwrap();
        assert_eq!(again.query("SELECT a FROM t", &[]).unwrap(), vec![json!({"a": 1})]);
        again.close().unwrap();
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{path}{suffix}"));
        }
    }

    #[test]
    fn nested_parameters_are_refused() {
        let db = Db::open(":memory:").unwrap();
        assert!(matches!(db.query("SELECT ?", &[json!([1])]), Err(StoreError::Param(0))));
    }

    #[test]
    fn a_duplicate_key_is_a_conflict_and_other_constraints_are_not() {
        let db = Db::open(":memory:").unwrap();
        db.exec("CREATE TABLE p (k TEXT PRIMARY KEY, u TEXT UNIQUE, n INTEGER NOT NULL)").unwrap();
        db.run("INSERT INTO p VALUES (?, ?, 1)", &[json!("a"), json!("x")]).unwrap();
        let primary = db.query("INSERT INTO p VALUES (?, ?, 1) RETURNING *", &[json!("a"), json!("y")]);
        assert!(matches!(primary, Err(StoreError::Conflict(_))), "{primary:?}");
        let unique = db.run("INSERT INTO p VALUES (?, ?, 1)", &[json!("b"), json!("x")]);
        assert!(matches!(unique, Err(StoreError::Conflict(_))), "{unique:?}");
        let not_null = db.run("INSERT INTO p VALUES (?, ?, NULL)", &[json!("c"), json!("z")]);
        assert!(matches!(not_null, Err(StoreError::Sqlite(_))), "{not_null:?}");
        assert!(matches!(db.exec("NOT SQL"), Err(StoreError::Sqlite(_))));
    }

    #[test]
    fn upsert_with_returning_reports_the_new_count() {
        let db = Db::open(":memory:").unwrap();
        db.exec("CREATE TABLE c (k TEXT PRIMARY KEY, n INTEGER NOT NULL)").unwrap();
        let sql = "INSERT INTO c (k, n) VALUES (?, 1) ON CONFLICT(k) DO UPDATE SET n = n + 1 RETURNING n";
        db.query(sql, &[json!("a")]).unwrap();
        let rows = db.query(sql, &[json!("a")]).unwrap();
        assert_eq!(rows, vec![json!({"n": 2})]);
    }
}
