//! The `LanguageServer` implementation: thin handlers over [`State`].
//!
//! Text-sync handlers contain no `.await`: they update the store synchronously (see the ordering
//! notes in `state.rs`) and spawn everything else.

use std::sync::Arc;

use serde_json::{Value, json};
use tower_lsp_server::LanguageServer;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types as lsp;
use tracing::{info, warn};

use super::completion;
use super::convert::{encoding_kind, negotiate};
use super::state::{ClientCaps, State};

pub const CMD_APPLY_REPAIR: &str = "mend.applyRepair";
pub const CMD_RECHECK: &str = "mend.recheck";

/// How long `shutdown` waits for cancelled jobs to end before answering anyway.
const SHUTDOWN_JOIN_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

pub struct Backend {
    pub state: Arc<State>,
}

impl Backend {
    fn apply_settings(&self, value: &Value) {
        let rejected = self.state.update_settings(value);
        if !rejected.is_empty() {
            warn!("ignored settings: {}", rejected.join(", "));
            let client = self.state.client.clone();
            let message = format!("mend ignored invalid settings: {}", rejected.join(", "));
            tokio::spawn(async move { client.show_message(lsp::MessageType::WARNING, message).await });
        }
    }

    fn recheck(&self, only: Option<&lsp::Uri>) {
        for work in self.state.recheck(only) {
            self.state.spawn(work);
        }
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: lsp::InitializeParams) -> Result<lsp::InitializeResult> {
        let caps = &params.capabilities;
        let enc = negotiate(caps.general.as_ref().and_then(|g| g.position_encodings.as_deref()));
        self.state.set_encoding(enc);
        let workspace = caps.workspace.as_ref();
        self.state.set_caps(ClientCaps {
            work_done_progress: caps.window.as_ref().and_then(|w| w.work_done_progress).unwrap_or(false),
            document_changes: workspace
                .and_then(|w| w.workspace_edit.as_ref())
                .and_then(|e| e.document_changes)
                .unwrap_or(false),
            configuration: workspace.and_then(|w| w.configuration).unwrap_or(false),
            apply_edit: workspace.and_then(|w| w.apply_edit).unwrap_or(false),
        });
        if let Some(options) = &params.initialization_options {
            self.apply_settings(options);
        }
        info!("initialized; position encoding {enc:?}");
        Ok(lsp::InitializeResult {
            capabilities: lsp::ServerCapabilities {
                position_encoding: Some(encoding_kind(enc)),
                text_document_sync: Some(lsp::TextDocumentSyncCapability::Options(lsp::TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(lsp::TextDocumentSyncKind::INCREMENTAL),
                    ..Default::default()
                })),
                code_action_provider: Some(lsp::CodeActionProviderCapability::Options(lsp::CodeActionOptions {
                    code_action_kinds: Some(vec![lsp::CodeActionKind::QUICKFIX]),
                    resolve_provider: Some(false),
                    ..Default::default()
                })),
                completion_provider: Some(lsp::CompletionOptions::default()),
                execute_command_provider: Some(lsp::ExecuteCommandOptions {
                    commands: vec![CMD_APPLY_REPAIR.into(), CMD_RECHECK.into()],
                    ..Default::default()
                }),
                ..Default::default()
            },
            server_info: Some(lsp::ServerInfo { name: "mend".into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: lsp::InitializedParams) {
        if self.state.caps().configuration {
            self.pull_configuration().await;
            self.recheck(None);
        }
    }

    async fn shutdown(&self) -> Result<()> {
        self.state.shutdown.store(true, std::sync::atomic::Ordering::SeqCst);
        self.state.cancel_all();
        // Cancelled jobs stop within milliseconds; the answer waits for their threads, so the
        // process never exits with a solver still running.
        if !self.state.running.wait_idle(SHUTDOWN_JOIN_LIMIT).await {
            warn!("shutdown: analysis threads still running after {SHUTDOWN_JOIN_LIMIT:?}");
        }
        Ok(())
    }

    async fn did_open(&self, params: lsp::DidOpenTextDocumentParams) {
        let doc = params.text_document;
        let work = self.state.open(doc.uri, doc.text, doc.version);
        self.state.spawn(work);
    }

    async fn did_change(&self, params: lsp::DidChangeTextDocumentParams) {
        if let Some(work) = self.state.change(params) {
            self.state.spawn(work);
        }
    }

    async fn did_close(&self, params: lsp::DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        if let Some(generation) = self.state.close(&uri) {
            self.state.spawn_clear(uri, generation);
        }
    }

    async fn did_change_configuration(&self, params: lsp::DidChangeConfigurationParams) {
        if params.settings.is_null() {
            if self.state.caps().configuration {
                self.pull_configuration().await;
            }
        } else {
            self.apply_settings(&params.settings);
        }
        self.recheck(None);
    }

    async fn code_action(&self, params: lsp::CodeActionParams) -> Result<Option<lsp::CodeActionResponse>> {
        if let Some(only) = &params.context.only
            && !only.iter().any(|k| k.as_str() == "quickfix" || k.as_str().is_empty())
        {
            return Ok(Some(Vec::new()));
        }
        let actions = self.state.code_actions(&params.text_document.uri, params.range, &params.context.diagnostics);
        Ok(Some(actions.into_iter().map(lsp::CodeActionOrCommand::CodeAction).collect()))
    }

    async fn completion(&self, params: lsp::CompletionParams) -> Result<Option<lsp::CompletionResponse>> {
        let at = params.text_document_position;
        let items = match self.state.text_at(&at.text_document.uri, at.position) {
            // Lowering and synthesis take milliseconds: off the async workers, on the analysis
            // jobs' big stack and behind their panic guard (deep nesting must not abort).
            Some((text, tree, offset)) => self
                .state
                .running
                .blocking(move || {
                    crate::check::job::on_big_stack(move || {
                        let tree = tree.unwrap_or_else(|| crate::syntax::parse(&text, None));
                        completion::items(&text, &tree, offset)
                    })
                    .unwrap_or_else(|e| {
                        warn!("completion failed: {e}");
                        Vec::new()
                    })
                })
                .await
                .unwrap_or_default(),
            None => Vec::new(),
        };
        Ok(Some(lsp::CompletionResponse::Array(items)))
    }

    async fn execute_command(&self, params: lsp::ExecuteCommandParams) -> Result<Option<Value>> {
        match params.command.as_str() {
            CMD_RECHECK => {
                let uri = params.arguments.first().and_then(uri_arg);
                self.recheck(uri.as_ref());
                Ok(None)
            }
            CMD_APPLY_REPAIR => {
                // Arguments: { "uri", "version"?, "index" } (index in code-action order).
                let arg = params.arguments.first().cloned().unwrap_or(Value::Null);
                let uri = uri_arg(&arg).ok_or_else(|| Error::invalid_params("expected {uri, version?, index}"))?;
                let index = arg.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
                let version = arg.get("version").and_then(Value::as_i64).map(|v| v as i32);
                let Some(edit) = self.state.repair_edit(&uri, version, index) else {
                    return Err(Error::invalid_params("no such repair for the current version"));
                };
                if !self.state.caps().apply_edit {
                    return Ok(Some(serde_json::to_value(edit).unwrap_or(Value::Null)));
                }
                match self.state.client.apply_edit(edit).await {
                    Ok(res) => Ok(Some(json!({ "applied": res.applied }))),
                    Err(e) => Err(e),
                }
            }
            other => Err(Error::invalid_params(format!("unknown command {other}"))),
        }
    }
}

/// The parameters of [`super::transport::EDIT_NOT_APPLIED`].
#[derive(serde::Deserialize)]
pub struct EditNotApplied {
    uri: lsp::Uri,
    reason: String,
}

impl Backend {
    /// The transport could not read an edit of `uri`: it was not applied, and the document is
    /// out of sync until the editor sends its whole text again.
    pub async fn edit_not_applied(&self, params: EditNotApplied) {
        if let Some(work) = self.state.mark_unreadable(&params.uri, &params.reason) {
            self.state.spawn(work);
        }
    }

    async fn pull_configuration(&self) {
        let item = lsp::ConfigurationItem { scope_uri: None, section: Some("mend".into()) };
        match self.state.client.configuration(vec![item]).await {
            Ok(values) => {
                if let Some(v) = values.into_iter().next().filter(|v| !v.is_null()) {
                    self.apply_settings(&v);
                }
            }
            Err(e) => warn!("workspace/configuration failed: {e}"),
        }
    }
}

/// A URI given as a string or as `{ "uri": ... }`.
fn uri_arg(v: &Value) -> Option<lsp::Uri> {
    let s = v.as_str().or_else(|| v.get("uri").and_then(Value::as_str))?;
    s.parse().ok()
}
