//! Hora's engine: request ingestion, the time engine, the cleaning stage and model inference.
//!
//! Pure Rust with no N-API types, so the same engine can serve other hosts.

pub mod choice;
pub mod clean;
pub mod error;
pub mod forecast;
pub mod ingest;
pub mod model;
pub mod nonnegative;
pub mod par;
pub mod time;
pub mod vocabulary;

pub use error::{ErrorCode, HoraError};
