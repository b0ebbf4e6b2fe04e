//! Thin napi-rs binding: converts types, runs engine work off the event loop, maps errors.
#![deny(clippy::all)]

mod body;
mod clean;
mod errors;
mod forecast;
mod guard;
mod model;
mod options;
mod store;
mod time;
