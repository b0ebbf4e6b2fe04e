//! Response bodies joined off the event loop. The engine writes each part of a response as JSON
//! bytes and the service frames them with its own members; joining them copies the whole answer,
//! which for hundreds of megabytes (`h` = 1024 over thousands of entities with every level) took
//! seconds on the JS thread, where every other request waited for it.

use crate::guard::{EngineTask, Guarded};
use napi::bindgen_prelude::*;
use napi_derive::napi;

pub struct JoinTask {
    pieces: Vec<Buffer>,
}

impl EngineTask for JoinTask {
    type Output = Vec<u8>;
    type JsValue = Buffer;

    fn run(&mut self) -> Result<Vec<u8>> {
        let mut joined = Vec::new();
        // A failed allocation is this request's error (a 500), not an abort of the process with
        // every request in flight, as `Vec::with_capacity` would make it.
        joined
            .try_reserve_exact(self.pieces.iter().map(|p| p.len()).sum())
            .map_err(|e| Error::new(Status::GenericFailure, format!("the response body could not be allocated: {e}")))?;
        for piece in &self.pieces {
            joined.extend_from_slice(piece);
        }
        Ok(joined)
    }

    fn resolve(&mut self, _env: Env, joined: Vec<u8>) -> Result<Buffer> {
        // The pieces' references are released here, on the JS thread that took them.
        self.pieces.clear();
        Ok(joined.into())
    }
}

/// The pieces' bytes, in order, as one Buffer made on the thread pool.
#[napi(ts_return_type = "Promise<Buffer>")]
pub fn join_bytes_task(pieces: Vec<Buffer>) -> AsyncTask<Guarded<JoinTask>> {
    AsyncTask::new(Guarded(JoinTask { pieces }))
}
