//! Language Server Protocol front: the only layer that knows LSP and JSON-RPC.
//!
//! * `state` — document store, scheduler and publisher (the ordering guarantees are there).
//! * `backend` — the `LanguageServer` handlers.
//! * `convert` — byte spans ↔ LSP positions in the negotiated encoding.
//! * `config` — settings → `CheckOptions`.
//! * `completion` — completion items (filled by the typed engine later).
//!
//! Analysis jobs are [`crate::check::job::Job`]s, the same panic- and stack-safe runs that
//! `mend check` uses.

pub mod backend;
pub mod completion;
pub mod config;
pub mod convert;
pub mod state;
pub mod syntax_api;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tower_lsp_server::{LspService, Server};

/// Serves LSP on stdin/stdout until `exit` (or end of input). Returns the process exit code:
/// 0 when `shutdown` came first, 1 otherwise (as the LSP specification asks).
pub async fn serve_stdio(hooks: crate::check::job::Hooks) -> i32 {
    let shutdown = Arc::new(AtomicBool::new(false));
    let flag = shutdown.clone();
    let (service, socket) =
        LspService::new(move |client| backend::Backend { state: Arc::new(state::State::new(client, flag, hooks)) });
    Server::new(tokio::io::stdin(), tokio::io::stdout(), socket).serve(service).await;
    if shutdown.load(Ordering::SeqCst) { 0 } else { 1 }
}
