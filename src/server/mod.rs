//! Language Server Protocol front: the only layer that knows LSP and JSON-RPC.
//!
//! * `state` — document store, scheduler and publisher (the ordering guarantees are there).
//! * `backend` — the `LanguageServer` handlers.
//! * `convert` — byte spans ↔ LSP positions in the negotiated encoding.
//! * `config` — settings → `CheckOptions`.
//! * `completion` — completion items from the typed engine.
//! * `transport` — the hardened wire: only well-formed messages reach the service.
//! * `memory` — the allocator settings that give a closed file's memory back.
//!
//! Analysis jobs are [`crate::check::job::Job`]s, the same panic- and stack-safe runs that
//! `mend check` uses.

pub mod backend;
pub mod completion;
pub mod config;
pub mod convert;
pub mod memory;
pub mod state;
pub mod syntax_api;
pub mod transport;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tower_lsp_server::{LspService, Server};

/// Serves LSP on stdin/stdout until `exit` (or end of input). Returns the process exit code:
/// 0 when `shutdown` came first, 1 otherwise (as the LSP specification asks).
pub async fn serve_stdio(hooks: crate::check::job::Hooks) -> i32 {
    memory::configure();
    let shutdown = Arc::new(AtomicBool::new(false));
    let flag = shutdown.clone();
    let served: Arc<std::sync::OnceLock<Arc<state::State>>> = Arc::default();
    let slot = served.clone();
    let (service, socket) = LspService::build(move |client| {
        let state = Arc::new(state::State::new(client, flag, hooks));
        let _ = slot.set(state.clone());
        backend::Backend { state }
    })
    .custom_method(transport::EDIT_NOT_APPLIED, backend::Backend::edit_not_applied)
    .finish();
    // stdin → transport::pump → the service → transport::relay → stdout (see `transport`).
    let out: transport::Output = Arc::new(tokio::sync::Mutex::new(Box::new(tokio::io::stdout())));
    let (to_service, service_in) = tokio::io::duplex(1 << 20);
    let (service_out, from_service) = tokio::io::duplex(1 << 20);
    let reader = tokio::spawn(transport::pump(tokio::io::stdin(), to_service, out.clone()));
    let writer = tokio::spawn(transport::relay(from_service, out.clone()));
    Server::new(service_in, service_out, socket).serve(service).await;
    // The service's last answers (to `shutdown`) are written before the process exits.
    let _ = writer.await;
    reader.abort();
    // `exit` without `shutdown`, or the end of input: the jobs are cancelled and joined here.
    if let Some(state) = served.get() {
        state.cancel_all();
        state.running.wait_idle(std::time::Duration::from_secs(10)).await;
    }
    if shutdown.load(Ordering::SeqCst) { 0 } else { 1 }
}
