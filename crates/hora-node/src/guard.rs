//! A panic in the engine is a bug, but it must cost one request, not the process: napi-rs runs a
//! task's `compute` inside an `extern "C"` callback, where an unwinding panic aborts Node and
//! every request in flight with it. Each task's work runs through `guarded`, so a panic rejects
//! its one promise (the service answers 500); sync entry points use `#[napi(catch_unwind)]`.

use napi::{Error, Result, Status};
use std::panic::{catch_unwind, AssertUnwindSafe};

pub fn guarded<T>(work: impl FnOnce() -> Result<T>) -> Result<T> {
    // The panic hook has already written the message and location to stderr, for the operator.
    catch_unwind(AssertUnwindSafe(work)).unwrap_or_else(|_| Err(Error::new(Status::GenericFailure, "the engine panicked")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_in_guarded_work_is_an_error_of_that_call_and_the_next_call_runs() {
        let failed = guarded::<u32>(|| panic!("index out of bounds"));
        assert_eq!(failed.unwrap_err().status, Status::GenericFailure);
        assert_eq!(guarded(|| Ok(7)).unwrap(), 7);
    }
}
