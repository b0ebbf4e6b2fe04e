//! A panic in the engine is a bug, but it must cost one request, not the process: napi-rs runs a
//! task's `compute` inside an `extern "C"` callback, where an unwinding panic aborts Node and
//! every request in flight with it. Every task is an [`EngineTask`] run as [`Guarded`], whose
//! `compute` goes through `guarded`: a panic rejects its one promise (the service answers 500),
//! and no task can leave the guard out. Sync entry points that run engine code on request data
//! use `#[napi(catch_unwind)]`.

use napi::bindgen_prelude::{ToNapiValue, TypeName};
use napi::{Env, Error, Result, Status, Task};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Work for the thread pool: napi's `Task`, with `run` in place of `compute`.
pub trait EngineTask: Send + Sized {
    type Output: Send + Sized + 'static;
    type JsValue: ToNapiValue + TypeName;

    fn run(&mut self) -> Result<Self::Output>;

    fn resolve(&mut self, env: Env, output: Self::Output) -> Result<Self::JsValue>;
}

/// The only `Task` the binding hands to napi: its work runs under `guarded`.
pub struct Guarded<T>(pub T);

impl<T: EngineTask> Task for Guarded<T> {
    type Output = T::Output;
    type JsValue = T::JsValue;

    fn compute(&mut self) -> Result<T::Output> {
        guarded(|| self.0.run())
    }

    fn resolve(&mut self, env: Env, output: T::Output) -> Result<T::JsValue> {
        self.0.resolve(env, output)
    }
}

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

    struct Panics;

    impl EngineTask for Panics {
        type Output = u32;
        type JsValue = u32;

        fn run(&mut self) -> Result<u32> {
            panic!("a bug in the engine")
        }

        fn resolve(&mut self, _env: Env, output: u32) -> Result<u32> {
            Ok(output)
        }
    }

    #[test]
    fn every_task_napi_runs_is_guarded() {
        // The binding hands napi only `Guarded` tasks: their `compute` cannot let a panic out.
        assert_eq!(Guarded(Panics).compute().unwrap_err().status, Status::GenericFailure);
    }
}
