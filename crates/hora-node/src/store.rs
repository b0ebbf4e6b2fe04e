//! The store's SQL executor, exposed synchronously: each statement is a sub-millisecond call on a
//! local file, cheaper than a hop to the thread pool.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::Value;

#[napi(object)]
pub struct RunResult {
    pub changes: i64,
    pub last_insert_rowid: i64,
}

#[napi]
pub struct SqliteDb {
    inner: hora_store::Db,
}

/// `err.code` of a store call refused because a row with that key already exists (a UNIQUE or
/// PRIMARY KEY constraint); every other store error has `GenericFailure`.
#[napi]
pub const UNIQUE_VIOLATION: &str = "UNIQUE_VIOLATION";

/// A store error as thrown to JavaScript, `err.code` being one of the two above. The methods
/// spell out `Result<T, &'static str>`: napi-derive throws only from a return type named `Result`.
fn store_err(e: hora_store::StoreError) -> Error<&'static str> {
    let code = match e {
        hora_store::StoreError::Conflict(_) => UNIQUE_VIOLATION,
        _ => Status::GenericFailure.as_ref(),
    };
    Error::new(code, e.to_string())
}

#[napi]
impl SqliteDb {
    /// Opens or creates the database file at `path` (absolute).
    #[napi(constructor)]
    pub fn new(path: String) -> Result<Self, &'static str> {
        Ok(SqliteDb { inner: hora_store::Db::open(&path).map_err(store_err)? })
    }

    /// Runs statements without parameters.
    #[napi]
    pub fn exec(&self, sql: String) -> Result<(), &'static str> {
        self.inner.exec(&sql).map_err(store_err)
    }

    /// Runs one statement and returns its rows as objects keyed by column name.
    #[napi]
    pub fn query(&self, sql: String, params: Vec<Value>) -> Result<Vec<Value>, &'static str> {
        self.inner.query(&sql, &params).map_err(store_err)
    }

    /// Runs one statement that returns no rows.
    #[napi]
    pub fn run(&self, sql: String, params: Vec<Value>) -> Result<RunResult, &'static str> {
        let out = self.inner.run(&sql, &params).map_err(store_err)?;
        Ok(RunResult { changes: out.changes as i64, last_insert_rowid: out.last_insert_rowid })
    }

    /// `run` with `bytes` bound as a BLOB after `params`: stored bytes never pass through a string.
    #[napi]
    pub fn run_with_blob(&self, sql: String, params: Vec<Value>, bytes: Buffer) -> Result<RunResult, &'static str> {
        let out = self.inner.run_with_blob(&sql, &params, &bytes).map_err(store_err)?;
        Ok(RunResult { changes: out.changes as i64, last_insert_rowid: out.last_insert_rowid })
    }

    /// Closes the connection now; later calls throw. Closing twice is fine.
    #[napi]
    pub fn close(&self) -> Result<(), &'static str> {
        self.inner.close().map_err(store_err)
    }

    /// The first column of the first row as bytes; null without a row.
    #[napi]
    pub fn query_blob(&self, sql: String, params: Vec<Value>) -> Result<Option<Buffer>, &'static str> {
        Ok(self.inner.query_blob(&sql, &params).map_err(store_err)?.map(Buffer::from))
    }
}
