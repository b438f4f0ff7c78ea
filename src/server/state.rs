//! The document store and the scheduler: ordered edits, per-version analysis jobs, and a
//! publisher that never sends a stale result.
//!
//! # Ordering guarantees
//! * **Edits in order.** tower-lsp-server creates each handler's future while reading messages
//!   in arrival order and first polls them in that order; the text-sync handlers call
//!   [`State::open`], [`State::change`] and [`State::close`], which are synchronous (no `.await`
//!   before the state update), so every edit is applied before the next message's handler runs.
//!   DashMap guards live only inside these synchronous functions.
//! * **No stale result.** Each document version gets a fresh [`Cancel`]; a newer version cancels
//!   the previous one. Publishing happens under one async mutex and re-reads the store: a result
//!   is sent only if its document generation and version are still current, and the
//!   (generation, version, stage) key never goes backwards per document, so a late syntax
//!   publication cannot overwrite the analysis of the same version.
//!
//! # Stages of one version
//! 1. `Syntax`: computed inside the edit handler and published at once; for a file over
//!    [`PARSE_OFF_LOOP_BYTES`] the handler only applies the edit, and the parse (cancelled by
//!    the next edit) and the syntax diagnostics run on the blocking pool first. A file over
//!    `maxAnalysisBytes` gets its syntax checked only, and a diagnostic says so.
//! 2. `Quick`: syntax + type diagnostics (the lowering), on the blocking pool right away.
//! 3. `Analysis`: the full [`check`](crate::check::check) after the debounce, with work-done
//!    progress when it takes longer than `progressDelayMs`.
//!
//! Jobs run on tokio's blocking pool, each inside a 512 MB-stack thread with `catch_unwind`
//! (see [`crate::check::job`]): a panic becomes an `internal-error` diagnostic. Every piece of
//! blocking work is counted in [`Running`], so `shutdown` cancels it and waits for its threads.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use dashmap::DashMap;
use tokio::sync::oneshot;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types as lsp;
use tracing::{debug, info, warn};

use crate::cancel::Cancel;
use crate::check::Report;
use crate::ir::Diagnostic;
use crate::ir::Repair;

use super::config::Settings;
use super::convert::{Lines, to_position};
use super::syntax_api::{Document, Encoding, syntax_diagnostics};
use crate::check::job::{Hooks, Job};
use crate::ir::{Severity, Span};

/// Files larger than this are parsed off the message loop: a full parse takes about 0.2 ms
/// per KB (a 10 MB file 2 s), an incremental one of a small file well under a millisecond.
pub const PARSE_OFF_LOOP_BYTES: usize = 64 << 10;

/// What the client told us it can do.
#[derive(Clone, Debug, Default)]
pub struct ClientCaps {
    pub work_done_progress: bool,
    pub document_changes: bool,
    pub configuration: bool,
    pub apply_edit: bool,
}

/// Publication stages of one version, in the order they may replace each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Stage {
    /// Syntax diagnostics, computed with the edit.
    Syntax = 0,
    /// Syntax and type diagnostics, milliseconds after the edit.
    Quick = 1,
    /// The full analysis as it stands when an engine finds a repair (repairs stream in).
    Partial = 2,
    /// The full report (tests, engines), after the debounce.
    Analysis = 3,
}

type PubKey = (u64, i32, Stage);

struct DocState {
    doc: Document,
    /// Distinguishes an open from a later re-open of the same URI.
    generation: u64,
    /// The version the client last sent; equals `doc.version` unless out of sync.
    client_version: i32,
    /// Syntax-layer diagnostics and repairs of `doc` (empty when they are switched off, or
    /// while the parse of a large file is pending: those of the old text would point at the
    /// wrong places).
    syntax: (Vec<Diagnostic>, Vec<Repair>),
    /// The latest quick or full analysis; only used while `analysis.0 == doc.version`.
    analysis: Option<Arc<(i32, Stage, Report)>>,
    /// Cancels the job of the current version.
    cancel: Cancel,
    /// Set when an edit could not be applied: the text no longer matches the client's.
    desync: Option<String>,
}

impl DocState {
    fn current_analysis(&self) -> Option<&Report> {
        match &self.analysis {
            Some(a) if a.0 == self.doc.version && self.desync.is_none() => Some(&a.2),
            _ => None,
        }
    }

    /// Repairs valid for the current text: the analysis's (which include the syntax layer's,
    /// from the canonical tree), or the syntax stage's until it comes.
    fn repairs(&self) -> Vec<Repair> {
        if self.desync.is_some() {
            return Vec::new();
        }
        match self.current_analysis() {
            Some(r) => r.repairs.clone(),
            None => self.syntax.1.clone(),
        }
    }

    /// The diagnostics currently shown for this document.
    fn diagnostics(&self) -> &[Diagnostic] {
        match self.current_analysis() {
            Some(r) => &r.diagnostics,
            None => &self.syntax.0,
        }
    }
}

/// Work to start once the synchronous state update is done.
pub struct Followup {
    uri: lsp::Uri,
    key: PubKey,
    cancel: Cancel,
    immediate: bool,
    notify: Option<String>,
    /// The text still has to be parsed (off the loop) before its syntax stage exists.
    parse: bool,
}

/// Blocking work in flight (parses, analyses, completions), so `shutdown` can wait for the
/// threads it cancelled: a job returns only after joining the threads it spawned.
#[derive(Default)]
pub struct Running {
    count: AtomicUsize,
    idle: tokio::sync::Notify,
}

struct RunningGuard(Arc<Running>);

impl Drop for RunningGuard {
    fn drop(&mut self) {
        if self.0.count.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

impl Running {
    /// Runs `f` on the blocking pool, counted until it returns.
    pub async fn blocking<T: Send + 'static>(
        self: &Arc<Self>,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, tokio::task::JoinError> {
        self.count.fetch_add(1, Ordering::SeqCst);
        let guard = RunningGuard(self.clone());
        tokio::task::spawn_blocking(move || {
            let _counted = guard;
            f()
        })
        .await
    }

    /// Waits until no blocking work is left, at most `limit`; says whether that happened.
    pub async fn wait_idle(&self, limit: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            // Registered before the check, so a wake-up in between is not lost.
            let woken = self.idle.notified();
            if self.count.load(Ordering::SeqCst) == 0 {
                return true;
            }
            if tokio::time::timeout_at(deadline, woken).await.is_err() {
                return self.count.load(Ordering::SeqCst) == 0;
            }
        }
    }
}

pub struct State {
    pub client: Client,
    docs: DashMap<lsp::Uri, DocState>,
    settings: RwLock<Settings>,
    encoding: RwLock<Encoding>,
    caps: RwLock<ClientCaps>,
    last_published: tokio::sync::Mutex<HashMap<lsp::Uri, PubKey>>,
    generations: AtomicU64,
    progress_ids: AtomicU64,
    /// Set by `shutdown`; read by `main` to choose the exit code.
    pub shutdown: Arc<AtomicBool>,
    /// Faults injected by tests (none in production).
    hooks: Hooks,
    /// Blocking work in flight.
    pub running: Arc<Running>,
}

impl State {
    pub fn new(client: Client, shutdown: Arc<AtomicBool>, hooks: Hooks) -> State {
        State {
            client,
            docs: DashMap::new(),
            settings: RwLock::new(Settings::default()),
            encoding: RwLock::new(Encoding::Utf16),
            caps: RwLock::new(ClientCaps::default()),
            last_published: tokio::sync::Mutex::new(HashMap::new()),
            generations: AtomicU64::new(0),
            progress_ids: AtomicU64::new(0),
            shutdown,
            hooks,
            running: Arc::default(),
        }
    }

    pub fn encoding(&self) -> Encoding {
        *self.encoding.read().unwrap_or_else(|e| e.into_inner())
    }
    pub fn set_encoding(&self, enc: Encoding) {
        *self.encoding.write().unwrap_or_else(|e| e.into_inner()) = enc;
    }
    pub fn caps(&self) -> ClientCaps {
        self.caps.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
    pub fn set_caps(&self, caps: ClientCaps) {
        *self.caps.write().unwrap_or_else(|e| e.into_inner()) = caps;
    }
    pub fn settings(&self) -> Settings {
        self.settings.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
    /// Applies a settings object; returns the keys that were rejected.
    pub fn update_settings(&self, value: &serde_json::Value) -> Vec<String> {
        self.settings.write().unwrap_or_else(|e| e.into_inner()).update(value)
    }

    /// Brings the syntax stage of `st` up to date with its text. A small file is reparsed at
    /// once; a large one is left to the followup (returns true), with no syntax result meanwhile:
    /// even with its tree current, its syntax diagnostics walk the whole tree (a recheck).
    fn refresh_syntax(&self, st: &mut DocState) -> bool {
        if st.doc.text.len() > PARSE_OFF_LOOP_BYTES {
            st.syntax = Default::default();
            return true;
        }
        st.doc.reparse();
        let tree = st.doc.tree().expect("just parsed");
        st.syntax = syntax_stage(tree, &st.doc.text, &self.settings());
        false
    }

    /// Parses the large document `key` on the blocking pool and installs its tree and syntax
    /// stage, unless a newer edit came meanwhile (false: that edit's followup takes over).
    async fn parse_off_loop(self: &Arc<Self>, uri: &lsp::Uri, key: PubKey, cancel: &Cancel) -> bool {
        let (revision, text, old) = {
            let Some(st) = self.docs.get(uri) else { return false };
            if st.generation != key.0 || st.client_version != key.1 || st.desync.is_some() {
                return false;
            }
            st.doc.parse_input()
        };
        let settings = self.settings();
        let cancel = cancel.clone();
        let parsed = self.running.blocking(move || {
            let tree = crate::syntax::parse_canonical(&text, old.as_ref(), &cancel)?;
            let syntax = syntax_stage(&tree, &text, &settings);
            Some((tree, syntax))
        });
        let Ok(Some((tree, syntax))) = parsed.await else { return false };
        let Some(mut st) = self.docs.get_mut(uri) else { return false };
        if st.generation != key.0 || !st.doc.install_tree(revision, tree) {
            return false;
        }
        st.syntax = syntax;
        true
    }

    // ---- text synchronisation: synchronous, called before any `.await` -----------------------

    pub fn open(&self, uri: lsp::Uri, text: String, version: i32) -> Followup {
        let generation = self.generations.fetch_add(1, Ordering::Relaxed) + 1;
        let cancel = Cancel::new();
        let mut st = DocState {
            doc: Document::unparsed(text, version),
            generation,
            client_version: version,
            syntax: Default::default(),
            analysis: None,
            cancel: cancel.clone(),
            desync: None,
        };
        let parse = self.refresh_syntax(&mut st);
        if let Some(old) = self.docs.insert(uri.clone(), st) {
            warn!("didOpen of an already open document {}; replacing it", uri.as_str());
            old.cancel.cancel();
        }
        Followup { uri, key: (generation, version, Stage::Syntax), cancel, immediate: false, notify: None, parse }
    }

    pub fn change(&self, params: lsp::DidChangeTextDocumentParams) -> Option<Followup> {
        let uri = params.text_document.uri;
        let version = params.text_document.version;
        let enc = self.encoding();
        let Some(mut entry) = self.docs.get_mut(&uri) else {
            warn!("didChange for a document that is not open: {}", uri.as_str());
            return None;
        };
        let st = entry.value_mut();
        st.cancel.cancel();
        st.cancel = Cancel::new();
        if version <= st.client_version {
            // Versions must increase (LSP); a client that goes back still changed the text, so
            // the change starts a new generation: its results are published, and no result of
            // the old numbering can replace them.
            warn!("didChange version {version} after {} for {}", st.client_version, uri.as_str());
            st.generation = self.generations.fetch_add(1, Ordering::Relaxed) + 1;
        }
        st.client_version = version;

        // Everything before the last full-text change is irrelevant, and a full-text change
        // brings a document that was out of sync back in sync.
        let changes = params.content_changes;
        let first = changes.iter().rposition(|c| c.range.is_none()).unwrap_or(0);
        let changes = &changes[first..];
        let resync = changes.first().is_some_and(|c| c.range.is_none());
        let mut notify = None;
        let mut parse = false;
        if st.desync.is_some() && !resync {
            debug!("ignoring an edit to out-of-sync {}", uri.as_str());
        } else {
            match apply_all(&mut st.doc, changes, enc) {
                Ok(()) => {
                    st.doc.version = version;
                    st.desync = None;
                    parse = self.refresh_syntax(st);
                }
                Err(message) => {
                    warn!("could not apply an edit to {} (version {version}): {message}", uri.as_str());
                    let text = format!(
                        "mend could not apply an edit to this file ({message}), so it no longer \
                         knows its text; close and reopen the file to resume checking."
                    );
                    notify = Some(text.clone());
                    st.desync = Some(text);
                }
            }
        }
        let key = (st.generation, version, Stage::Syntax);
        Some(Followup { uri, key, cancel: st.cancel.clone(), immediate: false, notify, parse })
    }

    /// An edit of `uri` could not be read (`reason`) and was not applied: the document keeps
    /// its last good text and is out of sync until the editor sends the whole text again.
    pub fn mark_unreadable(&self, uri: &lsp::Uri, reason: &str) -> Option<Followup> {
        let mut entry = self.docs.get_mut(uri)?;
        let st = entry.value_mut();
        st.cancel.cancel();
        st.cancel = Cancel::new();
        let text = format!(
            "mend received an edit of this file it could not apply ({reason}), so it no longer knows the file's \
             text; close and reopen the file to resume checking."
        );
        warn!("an edit of {} was not applied: {reason}", uri.as_str());
        st.desync = Some(text.clone());
        // A new generation: the note outranks whatever the analysis of the last good text
        // published (a key of the same version and an earlier stage would not replace it).
        st.generation = self.generations.fetch_add(1, Ordering::Relaxed) + 1;
        let key = (st.generation, st.client_version, Stage::Syntax);
        let cancel = st.cancel.clone();
        Some(Followup { uri: uri.clone(), key, cancel, immediate: false, notify: Some(text), parse: false })
    }

    pub fn close(&self, uri: &lsp::Uri) -> Option<u64> {
        let (_, st) = self.docs.remove(uri)?;
        st.cancel.cancel();
        Some(st.generation)
    }

    /// Re-runs every open document (new settings, `mend.recheck`), skipping the debounce.
    pub fn recheck(&self, only: Option<&lsp::Uri>) -> Vec<Followup> {
        let mut out = Vec::new();
        for mut entry in self.docs.iter_mut() {
            if only.is_some_and(|u| u != entry.key()) {
                continue;
            }
            let uri = entry.key().clone();
            let st = entry.value_mut();
            st.cancel.cancel();
            st.cancel = Cancel::new();
            let parse = st.desync.is_none() && self.refresh_syntax(st);
            let key = (st.generation, st.client_version, Stage::Syntax);
            out.push(Followup { uri, key, cancel: st.cancel.clone(), immediate: true, notify: None, parse });
        }
        out
    }

    pub fn cancel_all(&self) {
        for entry in self.docs.iter() {
            entry.cancel.cancel();
        }
    }

    // ---- asynchronous follow-up ---------------------------------------------------------------

    /// Publishes the syntax stage now, then (after the debounce) analyses and publishes.
    pub fn spawn(self: &Arc<Self>, work: Followup) {
        let this = self.clone();
        tokio::spawn(async move {
            if let Some(message) = work.notify {
                let client = this.client.clone();
                tokio::spawn(async move { client.show_message(lsp::MessageType::ERROR, message).await });
            }
            if work.parse && !this.parse_off_loop(&work.uri, work.key, &work.cancel).await {
                return;
            }
            this.publish(&work.uri, work.key).await;
            if !work.immediate {
                this.analyse(&work.uri, work.key, &work.cancel, Stage::Quick).await;
                tokio::time::sleep(this.settings().debounce).await;
            }
            if work.cancel.is_cancelled() {
                return;
            }
            this.analyse(&work.uri, work.key, &work.cancel, Stage::Analysis).await;
        });
    }

    /// Clears the diagnostics of a closed document (unless it was re-opened meanwhile).
    pub fn spawn_clear(self: &Arc<Self>, uri: lsp::Uri, generation: u64) {
        let this = self.clone();
        tokio::spawn(async move {
            let mut last = this.last_published.lock().await;
            if this.docs.contains_key(&uri) {
                return; // re-opened: its own publication replaces ours
            }
            if last.get(&uri).is_some_and(|k| k.0 > generation) {
                return;
            }
            last.remove(&uri);
            this.client.publish_diagnostics(uri, Vec::new(), None).await;
            // By now the document, its tree and the message that brought it are dropped.
            super::memory::release_freed();
        });
    }

    /// Runs a quick or full analysis of version `key.1` on the blocking pool and publishes it
    /// if that version is still current when it ends.
    async fn analyse(self: &Arc<Self>, uri: &lsp::Uri, key: PubKey, cancel: &Cancel, stage: Stage) {
        let quick = stage == Stage::Quick;
        let settings = self.settings();
        let job = {
            let Some(st) = self.docs.get(uri) else { return };
            if st.generation != key.0 || st.client_version != key.1 || st.desync.is_some() {
                return;
            }
            if st.doc.text.len() > settings.max_analysis_bytes {
                // The syntax stage carries the `syntax-only` diagnostic that says so.
                info!("{} is {} bytes; analysis skipped", uri.as_str(), st.doc.text.len());
                return;
            }
            Job {
                path: uri.to_file_path().map(|p| PathBuf::from(p.as_ref())),
                text: Arc::from(st.doc.text.as_str()),
                tree: st.doc.tree().cloned(),
                opts: settings.check.clone(),
                cancel: cancel.clone(),
                quick,
                on_partial: None,
                hooks: self.hooks,
            }
        };
        let mut job = job;
        if !quick {
            // Partial reports go out as repairs are found; the final one replaces them.
            let (partial_tx, mut partial_rx) = tokio::sync::mpsc::unbounded_channel::<Report>();
            job.on_partial = Some(Arc::new(move |r: &Report| {
                let _ = partial_tx.send(r.clone());
            }));
            let this = self.clone();
            let uri = uri.clone();
            let cancel = cancel.clone();
            tokio::spawn(async move {
                while let Some(report) = partial_rx.recv().await {
                    if cancel.is_cancelled() {
                        return;
                    }
                    if this.store_analysis(&uri, key, Stage::Partial, report) {
                        this.publish(&uri, (key.0, key.1, Stage::Partial)).await;
                    }
                }
            });
        }
        let (done_tx, done_rx) = oneshot::channel::<()>();
        if self.caps().work_done_progress && !quick {
            self.spawn_progress(settings.progress_delay, done_rx);
        }
        let run = move || job.run();
        let report = match self.running.blocking(run).await {
            Ok(report) => report,
            Err(e) => crate::check::job::internal_error_report("", &e.to_string()),
        };
        drop(done_tx);
        if cancel.is_cancelled() {
            debug!("dropping the cancelled {stage:?} analysis of {} v{}", uri.as_str(), key.1);
            return;
        }
        if self.store_analysis(uri, key, stage, report) {
            self.publish(uri, (key.0, key.1, stage)).await;
        }
    }

    /// Keeps `report` as the document's analysis if version `key` is still current and no
    /// later stage of it is stored (a quick or partial result never replaces the full one).
    fn store_analysis(&self, uri: &lsp::Uri, key: PubKey, stage: Stage, report: Report) -> bool {
        let Some(mut st) = self.docs.get_mut(uri) else { return false };
        if st.generation != key.0 || st.doc.version != key.1 || st.desync.is_some() {
            return false;
        }
        if st.analysis.as_ref().is_some_and(|a| (a.0, a.1) > (key.1, stage)) {
            return false;
        }
        st.analysis = Some(Arc::new((key.1, stage, report)));
        true
    }

    /// Shows a work-done progress if the job is still running after `delay`.
    fn spawn_progress(self: &Arc<Self>, delay: Duration, mut done: oneshot::Receiver<()>) {
        let client = self.client.clone();
        let id = self.progress_ids.fetch_add(1, Ordering::Relaxed);
        tokio::spawn(async move {
            if !delay.is_zero() {
                tokio::select! {
                    _ = tokio::time::sleep(delay) => {}
                    _ = &mut done => return,
                }
            }
            let token = lsp::ProgressToken::String(format!("mend/analysis/{id}"));
            if client.create_work_done_progress(token.clone()).await.is_err() {
                return;
            }
            let ongoing = client.progress(token, "mend").with_message("checking…").begin().await;
            let _ = done.await;
            ongoing.finish().await;
        });
    }

    /// Sends the diagnostics of `key`'s stage if that is still the document's current state and
    /// nothing newer went out already.
    async fn publish(&self, uri: &lsp::Uri, key: PubKey) {
        let mut last = self.last_published.lock().await;
        if last.get(uri).is_some_and(|prev| *prev > key) {
            return;
        }
        let diags = {
            let Some(st) = self.docs.get(uri) else { return };
            if st.generation != key.0 || st.client_version != key.1 {
                return;
            }
            let enc = self.encoding();
            let lines = Lines { text: &st.doc.text, index: &st.doc.index, enc };
            match (&st.desync, key.2) {
                (Some(message), _) => vec![desync_diagnostic(message)],
                (None, Stage::Syntax) => {
                    if !self.settings().check.syntax_diagnostics && st.analysis.is_some() {
                        return; // keep showing the previous analysis until the new one
                    }
                    st.syntax.0.iter().map(|d| lines.diagnostic(d, uri)).collect()
                }
                (None, Stage::Quick | Stage::Partial | Stage::Analysis) => match st.current_analysis() {
                    Some(r) => r.diagnostics.iter().map(|d| lines.diagnostic(d, uri)).collect(),
                    None => return,
                },
            }
        };
        last.insert(uri.clone(), key);
        self.client.publish_diagnostics(uri.clone(), diags, Some(key.1)).await;
    }

    // ---- queries ------------------------------------------------------------------------------

    /// Quick fixes for `range`: every current repair whose diagnostic touches the range.
    pub fn code_actions(&self, uri: &lsp::Uri, range: lsp::Range, context: &[lsp::Diagnostic]) -> Vec<lsp::CodeAction> {
        let enc = self.encoding();
        let caps = self.caps();
        let Some(st) = self.docs.get(uri) else { return Vec::new() };
        let lines = Lines { text: &st.doc.text, index: &st.doc.index, enc };
        let diags = st.diagnostics();
        let mut out: Vec<lsp::CodeAction> = Vec::new();
        // Repairs come best first; a repair is offered wherever one of the diagnostics it
        // fixes (every diagnostic of its bug) or one of its edits is.
        for repair in st.repairs().iter() {
            let fixes: Vec<lsp::Range> = repair.fixes.iter().map(|s| lines.range(*s)).collect();
            // Neovim asks with the cursor position and every diagnostic of the cursor's line:
            // a repair whose diagnostics are in the context is requested too.
            let requested = fixes.iter().any(|f| super::convert::touches(*f, range))
                || repair.edits.iter().any(|e| super::convert::touches(lines.range(e.span), range))
                || context.iter().any(|d| fixes.contains(&d.range) && d.source.as_deref() == Some("mend"));
            if !requested {
                continue;
            }
            let mut diagnostics: Vec<lsp::Diagnostic> =
                diags.iter().filter(|d| repair.fixes.contains(&d.span)).map(|d| lines.diagnostic(d, uri)).collect();
            if diagnostics.is_empty() {
                diagnostics.extend(context.iter().filter(|d| fixes.contains(&d.range)).cloned());
            }
            let edits = lines.text_edits(repair);
            out.push(lsp::CodeAction {
                title: repair.title.clone(),
                kind: Some(lsp::CodeActionKind::QUICKFIX),
                diagnostics: (!diagnostics.is_empty()).then_some(diagnostics),
                edit: Some(workspace_edit(uri, st.doc.version, edits, caps.document_changes)),
                is_preferred: Some(out.is_empty()),
                ..Default::default()
            });
        }
        out
    }

    /// The edit of repair `index` (in code-action order) for `version`, if still current.
    pub fn repair_edit(&self, uri: &lsp::Uri, version: Option<i32>, index: usize) -> Option<lsp::WorkspaceEdit> {
        let enc = self.encoding();
        let caps = self.caps();
        let st = self.docs.get(uri)?;
        if version.is_some_and(|v| v != st.doc.version) {
            return None;
        }
        let repair = st.repairs().into_iter().nth(index)?;
        let lines = Lines { text: &st.doc.text, index: &st.doc.index, enc };
        Some(workspace_edit(uri, st.doc.version, lines.text_edits(&repair), caps.document_changes))
    }

    /// Text, syntax tree (if parsed) and byte offset of `pos` in the current document, for
    /// completion; `None` for a file too large to analyse (its `syntax-only` diagnostic says so).
    pub fn text_at(&self, uri: &lsp::Uri, pos: lsp::Position) -> Option<(String, Option<tree_sitter::Tree>, usize)> {
        let enc = self.encoding();
        let st = self.docs.get(uri)?;
        if st.desync.is_some() || st.doc.text.len() > self.settings().max_analysis_bytes {
            return None;
        }
        let offset = st.doc.index.offset(&st.doc.text, to_position(pos), enc)?;
        Some((st.doc.text.clone(), st.doc.tree().cloned(), offset))
    }

    pub fn open_uris(&self) -> Vec<lsp::Uri> {
        self.docs.iter().map(|e| e.key().clone()).collect()
    }
}

/// The syntax stage of a text: its syntax diagnostics and repairs (if switched on), and for a
/// file over `maxAnalysisBytes` the notice that only its syntax is checked.
fn syntax_stage(tree: &tree_sitter::Tree, text: &str, settings: &Settings) -> (Vec<Diagnostic>, Vec<Repair>) {
    let (mut diags, repairs) =
        if settings.check.syntax_diagnostics { syntax_diagnostics(tree, text) } else { Default::default() };
    if text.len() > settings.max_analysis_bytes {
        let message = format!(
            "This file is {}, more than mend analyses ({}, the `maxAnalysisBytes` setting): only its syntax is \
             checked, with no type checks, tests, repairs or completion.",
            megabytes(text.len()),
            megabytes(settings.max_analysis_bytes)
        );
        diags.insert(0, Diagnostic::new(Severity::Information, "syntax-only", Span::new(0, 0), message));
    }
    (diags, repairs)
}

fn megabytes(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / (1 << 20) as f64)
}

fn workspace_edit(uri: &lsp::Uri, version: i32, edits: Vec<lsp::TextEdit>, versioned: bool) -> lsp::WorkspaceEdit {
    if versioned {
        lsp::WorkspaceEdit {
            document_changes: Some(lsp::DocumentChanges::Edits(vec![lsp::TextDocumentEdit {
                text_document: lsp::OptionalVersionedTextDocumentIdentifier {
                    uri: uri.clone(),
                    version: Some(version),
                },
                edits: edits.into_iter().map(lsp::OneOf::Left).collect(),
            }])),
            ..Default::default()
        }
    } else {
        lsp::WorkspaceEdit { changes: Some(HashMap::from([(uri.clone(), edits)])), ..Default::default() }
    }
}

fn desync_diagnostic(message: &str) -> lsp::Diagnostic {
    lsp::Diagnostic {
        range: lsp::Range::default(),
        severity: Some(lsp::DiagnosticSeverity::ERROR),
        code: Some(lsp::NumberOrString::String("edit-not-applied".into())),
        source: Some("mend".into()),
        message: message.to_string(),
        ..Default::default()
    }
}

/// Applies content changes in order (the tree is reparsed later). A single change relies on `edit` leaving the
/// document untouched on error (it checks the range first); several are applied to a copy, so
/// a failure in the middle leaves the document exactly as it was.
fn apply_all(doc: &mut Document, changes: &[lsp::TextDocumentContentChangeEvent], enc: Encoding) -> Result<(), String> {
    fn one(doc: &mut Document, c: &lsp::TextDocumentContentChangeEvent, enc: Encoding) -> Result<(), String> {
        let range = c.range.map(|r| (to_position(r.start), to_position(r.end)));
        doc.edit(range, &c.text, enc).map_err(|e| e.to_string())
    }
    match changes {
        [] => Ok(()),
        [c] => one(doc, c, enc),
        many => {
            let mut copy = doc.clone();
            for c in many {
                one(&mut copy, c, enc)?;
            }
            *doc = copy;
            Ok(())
        }
    }
}
