//! Engine errors cross to JavaScript as data (`{code, message, details}`), never as text to parse.

use hora_core::{ErrorCode, HoraError};
use napi_derive::napi;
use serde_json::Value;

#[napi(object)]
pub struct EngineError {
    /// A contract error code; `src/errors.ts` gives its status, category and retryable.
    pub code: String,
    pub message: String,
    pub details: Value,
}

impl From<HoraError> for EngineError {
    fn from(e: HoraError) -> Self {
        EngineError { code: e.code.as_str().to_string(), message: e.message, details: Value::Object(e.details) }
    }
}

/// Every code the engine can raise (a test checks them against the service's registry).
#[napi]
pub fn engine_error_codes() -> Vec<String> {
    ErrorCode::ALL.iter().map(|c| c.as_str().to_string()).collect()
}
