//! A safe interpreter of the typed IR: runs a student program on an input stream under limits
//! (steps, memory, output, call depth) and reports undefined behaviour that matters to students
//! (division by zero, out-of-bounds access, null dereference, use after free, reading a value
//! that was never given one) as a [`RuntimeError`] with the span of the offending expression.
//!
//! For well-defined programs the output agrees byte for byte with gcc -O0 on x86-64 glibc:
//! integers wrap to their type, signed division truncates, shift counts are masked as x86 does,
//! `float` arithmetic is rounded to single precision, and `printf` formats like glibc.
//!
//! Choices where C leaves freedom (each the one gcc -O0 makes on x86-64, unless stated):
//! - call arguments are evaluated right to left (`printf("%d %d", next(), counter)`);
//! - signed overflow, `INT_MIN / -1` and `abs(INT_MIN)` wrap silently;
//! - an out-of-range float-to-int conversion gives what `cvttsd2si` gives (`INT_MIN`);
//! - reading a scalar that was never given a value is an error (not gcc's stack garbage); so
//!   is any access outside an object, even one gcc would survive (`a[10]` of `int a[10]`);
//!   moving a pointer out of bounds is fine until it is dereferenced;
//! - a block-scope variable without initialiser becomes indeterminate again each time its
//!   declaration runs (gcc would keep the previous iteration's value);
//! - a freed heap block stays dead (use after free is caught) for the next 100,000 frees;
//! - `realloc` always moves the block (the old pointer is dangling even when the size is
//!   unchanged), and `realloc(p, 0)` frees `p` and returns `NULL`, as glibc does;
//! - `atoi` is glibc's `(int) strtol(s, NULL, 10)`: a value beyond `long` saturates, then the
//!   low 32 bits are kept (`atoi("2147483648")` is `INT_MIN`, `atoi("99999999999999999999")`
//!   is −1); `atol` saturates to `LONG_MAX`/`LONG_MIN`;
//! - `memcpy` of overlapping ranges copies as `memmove` does;
//! - `%p` prints an interpreter address, not gcc's.
//!
//! Memory is a set of blocks (one per variable, string literal, `malloc` result) with a
//! per-byte "initialised" flag; a pointer is `(block, offset)` packed into 64 bits, so it can
//! be stored in memory like any scalar. Variables whose address is never taken live in frame
//! slots. Every evaluated expression node and executed statement is one step.

pub mod debug;
mod format;
pub use format::{C_SPACE, is_c_space};
mod machine;
pub use machine::float_to_int;
mod memory;
mod shape;
mod text;

#[cfg(test)]
mod tests;

use crate::cancel::Cancel;
use crate::ir::{Program, Span};

/// Resource limits of one run.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Evaluated expression nodes plus executed statements.
    pub max_steps: u64,
    /// Sum of the sizes of live objects (variables, literals, heap blocks), in bytes.
    pub max_memory: u64,
    /// Bytes written to stdout.
    pub max_output: usize,
    /// Nested function calls (`main` is depth 1).
    pub max_call_depth: u32,
    /// The bounded verifier's unwinding bound: a run that executes one loop's body more than
    /// this many times in a row, or calls a function that already has this many active calls,
    /// stops with [`RuntimeErrorKind::BoundExceeded`]. A run that stays within it is a run of
    /// the bounded encoding, so the engines can decide a candidate on a concrete input.
    pub unwinding_bound: Option<u32>,
    /// Record the spans of the statements executed ([`RunResult::covered`]), for
    /// spectrum-based fault localization.
    pub record_coverage: bool,
    /// Record every call of a function other than the entry ([`RunResult::calls`]): what it
    /// was given and what it gave back, drawn without addresses, for fault localisation.
    pub record_calls: bool,
    /// A read of a never-assigned scalar local of integer or floating type gives 0 instead of
    /// stopping with [`RuntimeErrorKind::Uninitialized`]: the bounded encoding gives such a
    /// local an arbitrary value, so a run with 0 is one of the encoding's runs (the mutation
    /// engine's concrete filter uses it to reject a candidate that deletes an assignment).
    pub uninit_reads_zero: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_steps: 50_000_000,
            max_memory: 64 << 20,
            max_output: 1 << 20,
            max_call_depth: 10_000,
            unwinding_bound: None,
            record_coverage: false,
            record_calls: false,
            uninit_reads_zero: false,
        }
    }
}

impl Limits {
    /// These limits with the steps cut to what a run of the student's program (or of a
    /// candidate repair) may take on an input the reference ran in `reference_steps`: 20 times
    /// as many plus 100,000. A run beyond that loops for ever or does something else; stopping
    /// it early keeps a never-ending loop from costing the whole step limit per input.
    pub fn within_reference(&self, reference_steps: u64) -> Limits {
        const STEPS_PER_REFERENCE_STEP: u64 = 20;
        const STEP_SLACK: u64 = 100_000;
        let steps = reference_steps.saturating_mul(STEPS_PER_REFERENCE_STEP).saturating_add(STEP_SLACK);
        Limits { max_steps: self.max_steps.min(steps), ..self.clone() }
    }
}

/// Where a piece of output came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkKind {
    /// Text of a format-string literal (or a `puts` of a literal): prompts, labels.
    Literal,
    /// A formatted value (`%d`, `%s`, ...), `putchar`, or a `puts` of a non-literal string.
    Value,
}

/// One piece of output, in order; concatenated they equal [`RunResult::output`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputChunk {
    pub text: Vec<u8>,
    pub kind: ChunkKind,
    /// The call that printed it.
    pub span: Span,
    /// Its place in the call's format: a literal chunk is the text after `piece` directives
    /// (0: before the first), a value chunk the directive numbered `piece` from 0. Consecutive
    /// output of one place is one chunk (a loop printing the same literal).
    pub piece: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuntimeErrorKind {
    DivisionByZero,
    OutOfBounds,
    NullDereference,
    UseAfterFree,
    /// Reading a scalar that was never given a value.
    Uninitialized,
    /// `free` or `realloc` of a pointer that did not come from `malloc` (or is not the start
    /// of its block), or of one already freed.
    InvalidFree,
    /// Writing into a string literal.
    ReadOnlyWrite,
    StepLimit,
    MemoryLimit,
    OutputLimit,
    /// The call depth limit (runaway recursion).
    StackOverflow,
    AssertionFailed,
    ReachError,
    /// A `printf`/`scanf` format whose arguments do not match, or a malformed format.
    BadFormat,
    /// A `nondet_*()` call found no more input.
    InputExhausted,
    /// The run went past [`Limits::unwinding_bound`].
    BoundExceeded,
    /// A function without a body, or with constructs outside the supported subset.
    Unsupported,
    /// The entry function does not exist.
    NoEntry,
    Cancelled,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    pub kind: RuntimeErrorKind,
    pub span: Span,
    /// Student-readable, e.g. "division by zero in `a / b`".
    pub message: String,
}

#[derive(Clone, Debug, Default)]
pub struct RunResult {
    pub output: Vec<u8>,
    pub chunks: Vec<OutputChunk>,
    /// `main`'s return value or `exit`'s argument (not reduced modulo 256); `None` when the run
    /// stopped on an error or a failed assumption.
    pub exit_code: Option<i32>,
    pub error: Option<RuntimeError>,
    /// True when an `assume(e)` failed: the run is outside the specification and says nothing.
    pub assume_failed: bool,
    pub steps: u64,
    /// Byte length of `output` at the last successful input read (a `scanf` that assigned
    /// something, a `getchar` that returned a byte, ...): output before it is mostly prompts.
    pub output_before_last_read: usize,
    /// Some read found the input at its end (`scanf` returning EOF, `getchar` -1, ...).
    pub input_exhausted: bool,
    /// With [`Limits::record_coverage`]: every statement executed, each once, sorted.
    pub covered: Vec<Span>,
    /// With [`Limits::record_calls`]: the calls in the order they ended (an inner call before
    /// the call that made it); cut after [`MAX_CALL_RECORDS`] records or when the drawings
    /// grow past a few megabytes ([`RunResult::calls_cut`]).
    pub calls: Vec<CallRecord>,
    pub calls_cut: bool,
}

/// Records kept by one run with [`Limits::record_calls`].
pub const MAX_CALL_RECORDS: usize = 5_000;

/// One call as [`Limits::record_calls`] saw it. Values are drawn as a student would draw
/// them (`shape`): a list as `1 → 2 → NULL`, never an address, so records of two programs
/// compare.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallRecord {
    pub func: crate::ir::FuncId,
    /// The call expression.
    pub span: Span,
    /// Its place among all calls by start (0: the first call made).
    pub started: usize,
    /// What it was given: each parameter (for a pointer, what it points to), then each global.
    pub before: State,
    /// The same places when it returned (or stopped on an error).
    pub after: State,
    /// The value it returned (`None`: a `void` function, or the call stopped on an error).
    pub returned: Option<String>,
    /// The call stopped on this runtime error instead of returning.
    pub error: Option<String>,
    /// What it printed, its callees' output included.
    pub printed: String,
}

/// The places a call can see and change, drawn: `(name, drawing)`, the parameters first in
/// order, then the globals in declaration order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    pub params: Vec<(String, String)>,
    pub globals: Vec<(String, String)>,
}

impl RunResult {
    /// The output of [`ChunkKind::Value`] chunks only.
    pub fn value_output(&self) -> Vec<u8> {
        self.chunks.iter().filter(|c| c.kind == ChunkKind::Value).flat_map(|c| c.text.iter().copied()).collect()
    }
}

/// The stack an interpreter run may need: deep recursion hits `max_call_depth` before it.
pub const RUN_STACK: usize = 1 << 30;

thread_local! {
    /// This thread was started with [`RUN_STACK`] bytes of stack to spare for runs.
    static HAS_RUN_STACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Declares that the calling thread was started with a stack of [`RUN_STACK`] plus what it
/// uses itself when it calls [`run`]: its runs then need no thread of their own. A search
/// that runs thousands of candidates spent more on starting and tearing down those threads
/// (each a 1 GiB mapping, unmapped across both cores) than on the runs.
pub fn declare_run_stack() {
    HAS_RUN_STACK.with(|h| h.set(true));
}

/// Runs `entry` (usually `"main"`, called without arguments) of `program` with `input` as stdin.
/// Runs with a large stack so deep recursion hits `max_call_depth` rather than the host's
/// stack: on this thread when it has one ([`declare_run_stack`]), else on a helper thread.
pub fn run(program: &Program, entry: &str, input: &[u8], limits: &Limits, cancel: &Cancel) -> RunResult {
    on_run_stack(|| machine::run_here(program, entry, input, limits, cancel))
        .unwrap_or_else(|_| internal_error("the interpreter panicked"))
}

/// One interpreter run, as [`run_batch`] hands it out: [`run`]'s arguments.
pub type Runner = dyn Fn(&Program, &str, &[u8], &Limits, &Cancel) -> RunResult + Sync;

/// Several runs on one interpreter thread: `f` gets a `run` with [`run`]'s arguments, and
/// the thread (with its 1 GiB stack, whose set-up and tear-down cost more than a short run) is
/// started once for all of them (or not at all on a thread that has the stack).
pub fn run_batch<T: Send>(f: impl FnOnce(&Runner) -> T + Send) -> T {
    let run: &Runner = &machine::run_here;
    on_run_stack(|| f(run)).unwrap_or_else(|p| std::panic::resume_unwind(p))
}

/// `f` on a thread with [`RUN_STACK`] to spare: this one if it has it, else a new one (or this
/// one after all if no thread can be started). A panic in `f` is returned, not propagated.
fn on_run_stack<T: Send>(f: impl FnOnce() -> T + Send) -> std::thread::Result<T> {
    if HAS_RUN_STACK.with(|h| h.get()) {
        return std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    }
    // `f` moves into the thread only if it starts; else it is still here to call.
    let f = std::sync::Mutex::new(Some(f));
    std::thread::scope(|s| {
        let started =
            std::thread::Builder::new().name("mend-interp".into()).stack_size(RUN_STACK).spawn_scoped(s, || {
                declare_run_stack();
                let f = f.lock().unwrap_or_else(|e| e.into_inner()).take().expect("taken once");
                f()
            });
        match started {
            Ok(h) => h.join(),
            Err(_) => {
                let f = f.lock().unwrap_or_else(|e| e.into_inner()).take().expect("taken once");
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            }
        }
    })
}

fn internal_error(msg: &str) -> RunResult {
    RunResult {
        error: Some(RuntimeError { kind: RuntimeErrorKind::Unsupported, span: Span::default(), message: msg.into() }),
        ..Default::default()
    }
}
