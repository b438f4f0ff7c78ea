//! One debugging session: the adapter on the main thread ([`Adapter`]) and the run on its own
//! thread ([`Run`], the [`Debugger`] the interpreter pauses for).
//!
//! The run thread owns everything that only exists while the program is paused (the frames,
//! the variables' handles, the memory graph). While it is paused the adapter forwards it the
//! requests that look at the state; it answers them itself, and goes on when the adapter
//! sends it a way to go on (continue, a step) or an end.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::console;
use super::{Request, Writer};
use crate::cancel::Cancel;
use crate::check::expected_states::PassingTests;
use crate::ir::rewrite::Rewrite;
use crate::ir::{Program, Severity, Span};
use crate::spec::expectations::{Expectation, HitCounts};
use crate::spec::interp::debug::{Debugger, Inner, Paused, Resume, run_debug};
use crate::spec::interp::{Limits, RuntimeError, RuntimeErrorKind};
use crate::syntax::line_index::{Encoding, LineIndex};

/// What the run thread is told while it is paused.
pub(super) enum ToRun {
    /// A request that looks at or changes the paused state; the run thread answers it.
    Request(Request),
    /// Go on until the next pause.
    Go(Step),
    /// End the run.
    End,
}

/// How far to go before pausing again (besides breakpoints and a pause request).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// Until a breakpoint.
    Continue,
    /// The next statement in this call or a caller (step over).
    Over,
    /// The next statement anywhere (step in).
    In,
    /// The next statement in a caller (step out).
    Out,
}

/// What the adapter and the run share.
struct Shared {
    /// Lines (1-based, of the student's file) with a breakpoint.
    breakpoints: Mutex<BTreeSet<u32>>,
    /// The client asked for a pause.
    pause: AtomicBool,
    /// The run is paused and reads [`ToRun`] messages.
    paused: AtomicBool,
    /// The run has ended.
    ended: AtomicBool,
}

/// What `launch` says.
struct Launch {
    path: PathBuf,
    text: String,
    /// A C90 file with functions that have no return type runs with `int` written in:
    /// the rewrite, and the functions' names.
    written_int: Option<(Rewrite, Vec<String>)>,
    program: Program,
    input: Vec<u8>,
    stop_on_entry: bool,
    /// The tests of the file's mend.toml it passes: a repair keeps them.
    passing: PassingTests,
    /// The lines (1-based) a statement starts on: where breakpoints can stop.
    statement_lines: BTreeSet<u32>,
}

/// The adapter: the main thread's side of the session.
pub struct Adapter {
    writer: Arc<Writer>,
    shared: Arc<Shared>,
    launch: Option<Launch>,
    to_run: Option<Sender<ToRun>>,
    thread: Option<std::thread::JoinHandle<()>>,
    cancel: Cancel,
    /// The client counts lines from 1 (DAP's default) or 0.
    lines_from: u32,
    columns_from: u32,
}

impl Adapter {
    pub fn new(writer: Arc<Writer>) -> Adapter {
        Adapter {
            writer,
            shared: Arc::new(Shared {
                breakpoints: Mutex::new(BTreeSet::new()),
                pause: AtomicBool::new(false),
                paused: AtomicBool::new(false),
                ended: AtomicBool::new(false),
            }),
            launch: None,
            to_run: None,
            thread: None,
            cancel: Cancel::new(),
            lines_from: 1,
            columns_from: 1,
        }
    }

    /// Handles one request; `false` when the session is over.
    pub fn handle(&mut self, req: Request) -> bool {
        let w = self.writer.clone();
        match req.command.as_str() {
            "initialize" => {
                let args = &req.arguments;
                self.lines_from = u32::from(args.get("linesStartAt1").and_then(Value::as_bool).unwrap_or(true));
                self.columns_from = u32::from(args.get("columnsStartAt1").and_then(Value::as_bool).unwrap_or(true));
                w.respond(
                    &req,
                    Ok(json!({
                        "supportsConfigurationDoneRequest": true,
                        "supportsSetVariable": true,
                        "supportsEvaluateForHovers": true,
                        "supportsTerminateRequest": true,
                        "supportsLoadedSourcesRequest": false,
                    })),
                );
                w.event("initialized", json!({}));
            }
            "launch" => {
                let result = self.launch(&req.arguments);
                let ok = result.is_ok();
                w.respond(&req, result.map(|()| json!({})));
                if ok {
                    w.console(console::GREETING);
                }
            }
            "setBreakpoints" => {
                let result = self.set_breakpoints(&req.arguments);
                w.respond(&req, result);
            }
            "setExceptionBreakpoints" => w.respond(&req, Ok(json!({ "breakpoints": [] }))),
            "configurationDone" => {
                w.respond(&req, Ok(json!({})));
                self.start();
            }
            "threads" => w.respond(&req, Ok(json!({ "threads": [{ "id": 1, "name": "main" }] }))),
            "pause" => {
                self.shared.pause.store(true, Ordering::SeqCst);
                w.respond(&req, Ok(json!({})));
            }
            "continue" | "next" | "stepIn" | "stepOut" => {
                let step = match req.command.as_str() {
                    "continue" => Step::Continue,
                    "next" => Step::Over,
                    "stepIn" => Step::In,
                    _ => Step::Out,
                };
                let body = if step == Step::Continue { json!({ "allThreadsContinued": true }) } else { json!({}) };
                w.respond(&req, Ok(body));
                if self.shared.paused.swap(false, Ordering::SeqCst) {
                    self.send(ToRun::Go(step));
                }
            }
            "stackTrace" | "scopes" | "variables" | "evaluate" | "setVariable" | "source" | "mendHeap" => {
                if self.shared.paused.load(Ordering::SeqCst) {
                    self.send(ToRun::Request(req));
                } else if req.command == "source" {
                    let text = self.launch.as_ref().map(|l| l.text.clone()).unwrap_or_default();
                    w.respond(&req, Ok(json!({ "content": text })));
                } else if self.thread.is_none() {
                    w.respond(&req, Err("the program has not started yet".into()));
                } else if self.shared.ended.load(Ordering::SeqCst) {
                    w.respond(&req, Err("the program has ended".into()));
                } else {
                    w.respond(&req, Err("the program is running: pause it first".into()));
                }
            }
            "terminate" | "disconnect" => {
                w.respond(&req, Ok(json!({})));
                let last = req.command == "disconnect";
                self.end();
                if !last {
                    w.event("terminated", json!({}));
                }
                return !last;
            }
            other => w.respond(&req, Err(format!("mend's debugger does not support `{other}`"))),
        }
        true
    }

    fn send(&self, message: ToRun) {
        if let Some(tx) = &self.to_run {
            let _ = tx.send(message);
        }
    }

    fn launch(&mut self, args: &Value) -> Result<(), String> {
        let path = args.get("program").and_then(Value::as_str).ok_or("the launch configuration has no `program`")?;
        let path = PathBuf::from(path);
        let text = std::fs::read_to_string(&path).map_err(|e| format!("mend cannot read `{}`: {e}", path.display()))?;
        let input = launch_input(args, &path)?;
        // `int` written before a function that has none adds no line: lines and breakpoints
        // stay the student's.
        let written_int = crate::syntax::implicit_int::written_in(&text);
        let runs = written_int.as_ref().map_or(text.as_str(), |(r, _)| r.text.as_str());
        let lowered = crate::syntax::lower::lower_source(runs);
        let index = LineIndex::new(runs);
        if let Some(d) = lowered.diagnostics.iter().find(|d| d.severity == Severity::Error) {
            let line = index.line_of(d.span.start as usize) + 1;
            return Err(format!("line {line}: {} — fix this first; mend runs only a program that compiles", d.message));
        }
        let stop_on_entry = args.get("stopOnEntry").and_then(Value::as_bool).unwrap_or(false);
        let passing = PassingTests::of(&path, &lowered.program);
        let statement_lines = statement_lines(&lowered.program, &index);
        self.launch = Some(Launch {
            path,
            text,
            written_int,
            program: lowered.program,
            input,
            stop_on_entry,
            passing,
            statement_lines,
        });
        Ok(())
    }

    fn set_breakpoints(&mut self, args: &Value) -> Result<Value, String> {
        let requested: Vec<u32> = (args.get("breakpoints").and_then(Value::as_array).into_iter().flatten())
            .filter_map(|b| b.get("line").and_then(Value::as_u64))
            .map(|l| l as u32 + 1 - self.lines_from)
            .collect();
        let launch = self.launch.as_ref();
        let mut set = BTreeSet::new();
        let answers: Vec<Value> = requested
            .iter()
            // A breakpoint on a blank line or a comment moves to the next statement.
            .map(|&line| match launch.and_then(|l| l.statement_lines.range(line..).next().copied()) {
                Some(at) => {
                    set.insert(at);
                    json!({ "verified": true, "line": at - 1 + self.lines_from })
                }
                None if launch.is_none() => {
                    set.insert(line);
                    json!({ "verified": true, "line": line - 1 + self.lines_from })
                }
                None => json!({ "verified": false, "line": line - 1 + self.lines_from,
                                "message": "no statement on or after this line in a function" }),
            })
            .collect();
        *self.shared.breakpoints.lock().unwrap_or_else(|e| e.into_inner()) = set;
        Ok(json!({ "breakpoints": answers }))
    }

    /// Starts the run thread (after `configurationDone`).
    fn start(&mut self) {
        if self.thread.is_some() {
            // A second `configurationDone`: the program is already running.
            return;
        }
        let Some(launch) = &self.launch else {
            self.writer.console("mend has no program to run: the launch failed.");
            self.writer.event("terminated", json!({}));
            return;
        };
        let (tx, rx) = channel();
        let mut run = Run::new(launch, self.writer.clone(), self.shared.clone(), rx, self.cancel.child());
        run.columns_from = self.columns_from;
        run.lines_from = self.lines_from;
        let started = std::thread::Builder::new()
            .name("mend-debuggee".into())
            .stack_size(crate::spec::interp::RUN_STACK + (64 << 20))
            .spawn(move || {
                crate::spec::interp::declare_run_stack();
                run.go();
            });
        match started {
            Ok(handle) => {
                self.thread = Some(handle);
                self.to_run = Some(tx);
            }
            Err(e) => {
                self.writer.console(&format!("mend could not start the program's thread: {e}"));
                self.writer.event("terminated", json!({}));
            }
        }
    }

    /// Ends the run, if any, and waits for its thread.
    pub fn end(&mut self) {
        self.cancel.cancel();
        self.send(ToRun::End);
        self.to_run = None;
        if let Some(handle) = self.thread.take() {
            let _ = handle.join();
        }
    }
}

/// The input the program reads: `test` (a test of the file's mend.toml, by name: `3`,
/// `blackbox/2`), else `inputFile` (a path), else `input` (text); none is an empty input.
fn launch_input(args: &Value, program: &std::path::Path) -> Result<Vec<u8>, String> {
    let test =
        args.get("test").and_then(|t| t.as_str().map(str::to_string).or_else(|| t.as_u64().map(|n| n.to_string())));
    if let Some(name) = test.filter(|n| !n.is_empty()) {
        let config = crate::spec::config::discover(program)
            .map_err(|e| format!("{}: {}", e.file.display(), e.message))?
            .ok_or("`test` needs a mend.toml beside the program or above it")?;
        let dir = config.tests.ok_or("the mend.toml names no `tests` folder")?;
        let case = crate::spec::tests::discover(&dir).into_iter().find(|c| c.name == name);
        let case = case.ok_or_else(|| format!("there is no test `{name}` in `{}`", dir.display()))?;
        return std::fs::read(&case.input).map_err(|e| format!("mend cannot read `{}`: {e}", case.input.display()));
    }
    if let Some(file) = args.get("inputFile").and_then(Value::as_str).filter(|f| !f.is_empty()) {
        return std::fs::read(file).map_err(|e| format!("mend cannot read the input file `{file}`: {e}"));
    }
    Ok(args.get("input").and_then(Value::as_str).unwrap_or("").as_bytes().to_vec())
}

/// The lines (1-based) on which a statement of `program` starts.
fn statement_lines(program: &Program, index: &LineIndex) -> BTreeSet<u32> {
    let mut lines = BTreeSet::new();
    for body in program.funcs.iter().filter_map(|f| f.body.as_ref()) {
        crate::ir::walk::for_each_stmt(body, &mut |s| {
            if !matches!(s.kind, crate::ir::StmtKind::Block(_)) {
                lines.insert(index.line_of(s.span.start as usize) + 1);
            }
        });
    }
    lines
}

/// One entry of the variables pane the client can open.
#[derive(Clone, Debug)]
pub(super) enum Handle {
    Locals(usize),
    Globals,
    /// A struct, an array or a node, and the path the student would type for it.
    Inner(Inner, String),
}

/// A source patched by repairs: the student's text, what it became, and how.
pub(super) struct Patched {
    pub rewrite: Rewrite,
    pub program: Program,
    /// Some repair changed the program (not only `int` written before a function that had
    /// no return type): the frames show the patched text.
    pub repaired: bool,
}

/// The run thread's side: the program, its state at a pause, and the student's
/// expectations.
pub(super) struct Run {
    pub writer: Arc<Writer>,
    shared: Arc<Shared>,
    rx: Receiver<ToRun>,
    cancel: Cancel,
    pub path: PathBuf,
    /// The student's text, as launched.
    pub original: String,
    pub program: Program,
    /// After a repair (or with `int` written in, see [`Launch`]): the program as patched.
    pub patched: Option<Patched>,
    /// The functions that run with `int` written before them.
    pub written_int: Vec<String>,
    pub input: Vec<u8>,
    pub passing: PassingTests,
    original_index: LineIndex,
    /// Lines of the text that runs (the patched one after a repair).
    current_index: LineIndex,
    /// The line and call depth of the last point the run arrived at.
    last_line: Option<(Option<u32>, usize)>,
    lines_from: u32,
    columns_from: u32,
    /// Output already sent to the client, and already looked at for a line end.
    flushed: usize,
    scanned: usize,
    /// How to go on, and the call depth and line it was asked at.
    step: Option<(Step, usize, u32)>,
    pub hits: HitCounts,
    /// Pause at this point (its hit) before anything else: a hot-patched run replaying up to
    /// where the repair was asked.
    replay: Option<(Span, u32)>,
    /// The handles of the variables pane at this pause.
    pub handles: Vec<Handle>,
    /// Wolverine2's names of nodes: an address gets the next number when first shown.
    pub node_names: HashMap<i64, u32>,
    pub expectations: Vec<Expectation>,
    /// The changes made at this pause (`change`), for `spec`'s message.
    pub changes_here: Vec<String>,
    /// The last pause whose state the student recorded with no change: its line and the
    /// time the run was there.
    pub last_agreed: Option<(u32, u32)>,
    /// A repair to apply: the run ends and starts again, patched, up to this pause.
    pub restart: Option<Patched>,
}

impl Run {
    fn new(launch: &Launch, writer: Arc<Writer>, shared: Arc<Shared>, rx: Receiver<ToRun>, cancel: Cancel) -> Run {
        Run {
            writer,
            shared,
            rx,
            cancel,
            path: launch.path.clone(),
            original_index: LineIndex::new(&launch.text),
            current_index: LineIndex::new(launch.written_int.as_ref().map_or(&launch.text, |(r, _)| &r.text)),
            original: launch.text.clone(),
            program: launch.program.clone(),
            patched: (launch.written_int.as_ref()).map(|(rewrite, _)| Patched {
                rewrite: rewrite.clone(),
                program: launch.program.clone(),
                repaired: false,
            }),
            written_int: launch.written_int.as_ref().map(|(_, names)| names.clone()).unwrap_or_default(),
            input: launch.input.clone(),
            passing: launch.passing.clone(),
            last_line: None,
            lines_from: 1,
            columns_from: 1,
            flushed: 0,
            scanned: 0,
            step: launch.stop_on_entry.then_some((Step::In, 0, 0)),
            hits: HitCounts::default(),
            replay: None,
            handles: Vec::new(),
            node_names: HashMap::new(),
            expectations: Vec::new(),
            changes_here: Vec::new(),
            last_agreed: None,
            restart: None,
        }
    }

    /// The program as it runs now (patched or not).
    pub fn current_program(&self) -> &Program {
        self.patched.as_ref().map_or(&self.program, |p| &p.program)
    }

    pub fn current_text(&self) -> &str {
        self.patched.as_ref().map_or(&self.original, |p| &p.rewrite.text)
    }

    /// Runs the program (again after each hot patch) to its end.
    fn go(&mut self) {
        let limits = Limits::default();
        loop {
            let program = self.current_program().clone();
            let input = self.input.clone();
            let cancel = self.cancel.clone();
            self.hits = HitCounts::default();
            self.flushed = 0;
            self.scanned = 0;
            let result = run_debug(&program, "main", &input, &limits, &cancel, self);
            if let Some(patched) = self.restart.take() {
                self.current_index = LineIndex::new(&patched.rewrite.text);
                self.patched = Some(patched);
                self.last_line = None;
                continue;
            }
            if self.replay.take().is_some() {
                self.writer.console("The repaired program did not come back to that point; it ran to its end.");
            }
            self.flush(&result.output);
            match &result.error {
                Some(e) if e.kind == RuntimeErrorKind::Cancelled => {}
                Some(e) => self.writer.event(
                    "output",
                    json!({ "category": "stderr", "output": format!("line {}: {}\n", self.line(e.span), e.message) }),
                ),
                None => {}
            }
            self.shared.ended.store(true, Ordering::SeqCst);
            let code = result.exit_code.unwrap_or(1);
            self.writer.event("exited", json!({ "exitCode": code }));
            self.writer.event("terminated", json!({}));
            return;
        }
    }

    fn flush(&mut self, output: &[u8]) {
        if output.len() > self.flushed {
            let text = String::from_utf8_lossy(&output[self.flushed..]).into_owned();
            self.writer.event("output", json!({ "category": "stdout", "output": text }));
            self.flushed = output.len();
            self.scanned = output.len();
        }
    }

    /// The 1-based line of `span` in the text that runs.
    pub fn line(&self, span: Span) -> u32 {
        self.current_index.line_of(span.start as usize) + 1
    }

    /// The line of the student's own file a point of the running program comes from (`None`:
    /// inside code a repair inserted).
    fn original_line(&self, span: Span) -> Option<u32> {
        let offset = match &self.patched {
            Some(p) => p.rewrite.original_offset(span.start)?,
            None => span.start,
        };
        Some(self.original_index.line_of(offset as usize) + 1)
    }

    /// Whether a breakpoint stops the run at `at`: the point is on a line with a breakpoint,
    /// and the run comes to that line from another one or another call (a `for` header and
    /// its initialisation, or a line of several statements, stop once; a loop's header stops
    /// at each iteration).
    fn breakpoint_at(&mut self, at: Span, depth: usize) -> bool {
        let line = self.original_line(at);
        let arrived = self.last_line.replace((line, depth)) != Some((line, depth));
        arrived && line.is_some_and(|l| self.shared.breakpoints.lock().unwrap_or_else(|e| e.into_inner()).contains(&l))
    }

    /// Pauses: tells the client why, then answers its requests until it says how to go on.
    fn pause(&mut self, paused: &mut Paused<'_, '_>, reason: &str, text: Option<&str>) -> Resume {
        self.flush(paused.output());
        self.handles.clear();
        self.changes_here.clear();
        let mut body = json!({ "reason": reason, "threadId": 1, "allThreadsStopped": true });
        if let Some(text) = text {
            body["description"] = json!(text);
            body["text"] = json!(text);
        }
        self.shared.paused.store(true, Ordering::SeqCst);
        self.writer.event("stopped", body);
        loop {
            let Ok(message) = self.rx.recv() else { return Resume::Stop };
            match message {
                ToRun::Request(req) => {
                    let result = self.answer(paused, &req);
                    self.writer.respond(&req, result);
                    if self.restart.is_some() {
                        self.shared.paused.store(false, Ordering::SeqCst);
                        return Resume::Stop;
                    }
                }
                ToRun::Go(step) => {
                    self.step = Some((step, paused.depth(), self.line(paused.at())));
                    self.shared.pause.store(false, Ordering::SeqCst);
                    return Resume::Go;
                }
                ToRun::End => {
                    self.shared.paused.store(false, Ordering::SeqCst);
                    return Resume::Stop;
                }
            }
        }
    }

    fn answer(&mut self, paused: &mut Paused<'_, '_>, req: &Request) -> Result<Value, String> {
        let args = &req.arguments;
        match req.command.as_str() {
            "stackTrace" => {
                let text = self.current_text().to_string();
                let index = LineIndex::new(&text);
                let frames: Vec<Value> = (paused.frames().iter().enumerate())
                    .map(|(i, f)| {
                        let pos = index.position(&text, f.at.start as usize, Encoding::Utf16);
                        json!({
                            "id": i + 1,
                            "name": f.function,
                            "source": self.source(),
                            "line": pos.line + self.lines_from,
                            "column": pos.character + self.columns_from,
                        })
                    })
                    .collect();
                Ok(json!({ "stackFrames": frames, "totalFrames": frames.len() }))
            }
            "scopes" => {
                let frame = frame_index(args);
                let locals = self.handle(Handle::Locals(frame));
                let globals = self.handle(Handle::Globals);
                Ok(json!({ "scopes": [
                    { "name": "Locals", "variablesReference": locals, "expensive": false },
                    { "name": "Globals", "variablesReference": globals, "expensive": false },
                ] }))
            }
            "variables" => {
                let reference = args.get("variablesReference").and_then(Value::as_u64).unwrap_or(0) as usize;
                let handle = self.handles.get(reference.wrapping_sub(1)).cloned().ok_or("these variables are gone")?;
                let (vars, prefix) = match &handle {
                    Handle::Locals(frame) => (paused.locals(*frame), None),
                    Handle::Globals => (paused.globals(), None),
                    Handle::Inner(inner, path) => (paused.expand(inner), Some(path.clone())),
                };
                let list: Vec<Value> = vars
                    .into_iter()
                    .map(|v| {
                        let path = match &prefix {
                            None => v.name.clone(),
                            Some(p) if v.name.starts_with('[') => format!("{p}{}", v.name),
                            Some(p) => format!("{p}->{}", v.name),
                        };
                        let reference = v.inner.map_or(0, |inner| self.handle(Handle::Inner(inner, path)));
                        json!({ "name": v.name, "value": v.value, "type": v.ty, "variablesReference": reference })
                    })
                    .collect();
                Ok(json!({ "variables": list }))
            }
            "setVariable" => {
                let reference = args.get("variablesReference").and_then(Value::as_u64).unwrap_or(0) as usize;
                let name = args.get("name").and_then(Value::as_str).unwrap_or("");
                let value = args.get("value").and_then(Value::as_str).unwrap_or("");
                let path = match self.handles.get(reference.wrapping_sub(1)) {
                    Some(Handle::Locals(0) | Handle::Globals) => name.to_string(),
                    Some(Handle::Inner(_, p)) if name.starts_with('[') => format!("{p}{name}"),
                    Some(Handle::Inner(_, p)) => format!("{p}->{name}"),
                    Some(Handle::Locals(_)) => return Err("mend changes values in the innermost call only".into()),
                    None => return Err("this variable is gone".into()),
                };
                console::change(self, paused, &path, value)?;
                let shown = paused.print(&path, &|n| self.node_address(n))?;
                Ok(json!({ "value": shown.value, "type": shown.ty }))
            }
            "evaluate" => {
                let expression = args.get("expression").and_then(Value::as_str).unwrap_or("");
                let context = args.get("context").and_then(Value::as_str).unwrap_or("repl");
                if frame_index(args) != 0 && context == "repl" && console::changes_state(expression) {
                    return Err("mend changes and records states in the innermost call only".into());
                }
                let result = if context == "repl" {
                    console::run(self, paused, expression)
                } else {
                    paused.print(expression, &|n| self.node_address(n)).map(|v| v.value)
                }?;
                Ok(json!({ "result": result, "variablesReference": 0 }))
            }
            "source" => Ok(json!({ "content": self.current_text() })),
            "mendHeap" => {
                let graph = paused.graph(frame_index(args));
                self.name_nodes(&graph);
                let name = |k: usize| self.node_name(&graph, k);
                Ok(json!({ "text": graph.text(&name), "dot": graph.dot(&name) }))
            }
            other => Err(format!("mend cannot answer `{other}` here")),
        }
    }

    fn handle(&mut self, handle: Handle) -> usize {
        self.handles.push(handle);
        self.handles.len()
    }

    /// The source a frame shows: the student's file, or the patched text once a repair was
    /// applied (the file on disk is never written).
    fn source(&self) -> Value {
        let name = self.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        match &self.patched {
            Some(p) if p.repaired => json!({ "name": format!("{name} (repaired)"), "sourceReference": 1 }),
            _ => json!({ "name": name, "path": self.path.to_string_lossy() }),
        }
    }

    /// Gives each node of `graph` not named yet the next number.
    pub fn name_nodes(&mut self, graph: &crate::spec::interp::debug::MemoryGraph) {
        for node in &graph.nodes {
            let next = self.node_names.len() as u32 + 1;
            self.node_names.entry(node.addr).or_insert(next);
        }
    }

    pub fn node_name(&self, graph: &crate::spec::interp::debug::MemoryGraph, k: usize) -> String {
        graph.nodes.get(k).and_then(|n| self.node_names.get(&n.addr)).map_or_else(|| "n?".into(), |n| format!("n{n}"))
    }

    /// The address of the node the student calls `name` (`n3`).
    pub fn node_address(&self, name: &str) -> Option<i64> {
        let n: u32 = name.trim().strip_prefix('n')?.parse().ok()?;
        self.node_names.iter().find(|(_, v)| **v == n).map(|(a, _)| *a)
    }

    pub fn cancel(&self) -> &Cancel {
        &self.cancel
    }

    /// Ends this run and starts the patched program, pausing at `at` (its `hit`-th arrival).
    pub fn hot_patch(&mut self, patched: Patched, at: Span, hit: u32) {
        self.replay = Some((at, hit));
        self.restart = Some(patched);
    }
}

fn frame_index(args: &Value) -> usize {
    args.get("frameId").and_then(Value::as_u64).map_or(0, |id| id.saturating_sub(1) as usize)
}

impl Debugger for Run {
    fn at_point(&mut self, paused: &mut Paused<'_, '_>) -> Resume {
        let at = paused.at();
        let hit = self.hits.arrive(at);
        if let Some((span, k)) = self.replay {
            if span != at || hit != k {
                return Resume::Go;
            }
            self.replay = None;
            self.flushed = paused.output().len();
            self.scanned = self.flushed;
            let back = match self.original_line(at) {
                Some(l) if l != self.line(at) => {
                    format!("line {l} of your file (line {} of the repaired program)", self.line(at))
                }
                _ => format!("line {}", self.line(at)),
            };
            self.writer.console(&format!(
                "The repair is applied: the program ran again from the start and is back where you were, at {back}."
            ));
            return self.pause(paused, "step", Some("repair applied"));
        }
        // Whole lines as they come (and the rest at a pause or the end); each byte is looked
        // at once, so a long line printed piece by piece costs no more than its length.
        let output = paused.output();
        if output.len() > self.scanned {
            let new_line = output[self.scanned..].contains(&b'\n');
            self.scanned = output.len();
            if new_line {
                self.flush(output);
            }
        }
        let depth = paused.depth();
        let on_breakpoint = self.breakpoint_at(at, depth);
        let reason = if self.shared.pause.swap(false, Ordering::SeqCst) {
            Some("pause")
        } else {
            // Steps go by lines, as the student reads the code: `int n, x, i;` is one step.
            match self.step {
                Some((Step::In, d, l)) if depth != d || self.line(at) != l => Some("step"),
                Some((Step::Over, d, l)) if depth < d || (depth == d && self.line(at) != l) => Some("step"),
                Some((Step::Out, d, _)) if depth < d => Some("step"),
                _ if on_breakpoint => Some("breakpoint"),
                _ => None,
            }
        };
        match reason {
            Some(reason) => {
                let reason = if self.step == Some((Step::In, 0, 0)) { "entry" } else { reason };
                self.step = None;
                self.pause(paused, reason, None)
            }
            None => Resume::Go,
        }
    }

    fn at_error(&mut self, paused: &mut Paused<'_, '_>, error: &RuntimeError) {
        if error.kind == RuntimeErrorKind::Cancelled {
            return;
        }
        self.flush(paused.output());
        let text = format!("line {}: {}", self.line(error.span), error.message);
        self.pause(paused, "exception", Some(&text));
    }
}
