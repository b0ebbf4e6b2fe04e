//! Thin napi-rs binding: converts types, runs engine work off the event loop, maps errors.
#![deny(clippy::all)]
// The test build (the panic guard's test) leaves out napi's registration of the exports, so they read as unused there.
#![cfg_attr(test, allow(dead_code))]

mod body;
mod clean;
mod errors;
mod forecast;
mod guard;
mod join;
mod kernels;
mod model;
mod options;
mod shape;
mod store;
mod time;
mod validation;
