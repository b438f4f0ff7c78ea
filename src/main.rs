//! The `mend` command: a thin CLI over the library.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use mend::check::CheckOptions;
use mend::check::job as analysis;
use mend::cli;
use mend::spec::compare::Compare;
use mend::syntax::flags::CompilerFlags;

#[derive(Parser)]
#[command(name = "mend", version, about = "Suggests minimal, checked repairs for student C programs")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the language server on stdin/stdout (logs go to stderr; set MEND_LOG=debug for more).
    Lsp {
        /// Faults to inject for tests (`delay=MS,panic`); hidden, never needed in use.
        #[arg(long, hide = true, value_parser = analysis::Hooks::parse)]
        test_hooks: Option<analysis::Hooks>,
        /// Accepted and ignored: stdio is the only transport. Clients built on
        /// vscode-languageclient (the VS Code extension among them) add it to the command.
        #[arg(long, hide = true)]
        stdio: bool,
    },
    /// Run the debugger (Debug Adapter Protocol) on stdin/stdout: mend's interpreter runs the
    /// program, the console has Wolverine2's `change`, `spec` and `repair` commands.
    Dap,
    /// Check C files and print diagnostics, repairs and test results.
    ///
    /// Exit status: 0 whether or not problems were found; 1 if some file could not be read or
    /// analysed (the others are still reported); 2 on usage errors.
    Check(CheckArgs),
    /// Print the performance figures (build with --release), or with DIR check every `.c`
    /// file under it and print per-file verdicts and timings.
    Bench {
        /// A folder of C files (with their mend.toml) to check; `typed` runs the typed
        /// engine's accuracy and latency benchmark instead; `mutation` only the mutation
        /// engine's table (set MEND_BENCH_ONLY=tcas for just the TCAS-like rows); `server`
        /// the server's reliability figures (large file, memory, cancel, shutdown); `compile`
        /// mend on programs gcc rejects (errors reported, fixes that compile, latency);
        /// `mistakes` prints the table of students' compile fixes learned from such a course
        /// (src/ir/mistakes.tsv); `faults` injects single faults into each problem's reference
        /// and measures their repair (Wolverine2's evaluation); `debug` the debugger's repair
        /// with a simulated student who records the reference's states (default data:
        /// courses/heap).
        dir: Option<PathBuf>,
        /// With `typed`, `reference` or `faults`: the dataset (default `../shared/data/introclass`); with
        /// `compile` or `mistakes`: a course with `syntax/` folders (default `../shared/data/cpack`).
        data: Option<PathBuf>,
        /// With `reference` and `faults`: the analysis budget per submission, in seconds.
        #[arg(long, default_value_t = 60)]
        budget: u64,
        /// With `reference`: at most this many submissions per problem (spread over its list);
        /// with `faults`: this many injected faults per problem (default 10); with `debug`: the
        /// first this many submissions per problem.
        #[arg(long)]
        limit: Option<usize>,
        /// With `reference` and `limit`: where in each step of the spread to take a submission,
        /// from 0 (the default sample) to below 1 (0.5: the ones halfway between).
        #[arg(long, default_value_t = 0.0)]
        shift: f64,
        /// With `reference`, `faults` and `debug`: one line per submission; with `compile`: every file mend is
        /// silent on or does not fix.
        #[arg(long)]
        verbose: bool,
        /// With `reference`: how outputs are compared for problems whose folder has no
        /// mend.toml (one that has says its own `compare`).
        #[arg(long, value_enum, default_value_t = CompareArg::Values)]
        compare: CompareArg,
        /// With `compile` and `reference`: the course's compiler flags (e.g. "-Wall -Werror
        /// -ansi") for every file; by default each problem's mend.toml `flags`. `reference`
        /// analyses under them and checks with gcc that every repair still builds.
        #[arg(long, value_name = "FLAGS", allow_hyphen_values = true, value_parser = CompilerFlags::parse)]
        flags: Option<CompilerFlags>,
    },
}

#[derive(clap::Args)]
struct CheckArgs {
    /// C files to check.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Reference program (overrides `reference` in mend.toml).
    #[arg(long, value_name = "REF")]
    reference: Option<PathBuf>,
    /// Folder of N.in / N.out tests (overrides `tests` in mend.toml).
    #[arg(long, value_name = "DIR")]
    tests: Option<PathBuf>,
    /// How outputs are compared (overrides `compare` in mend.toml).
    #[arg(long, value_enum)]
    compare: Option<CompareArg>,
    /// The course's compiler flags, e.g. "-Wall -Wextra -Werror -ansi -pedantic" (overrides
    /// `flags` in mend.toml): C90's rules and gcc's warnings are reported as that compiler does.
    #[arg(long, value_name = "FLAGS", allow_hyphen_values = true, value_parser = CompilerFlags::parse)]
    flags: Option<CompilerFlags>,
    /// Time budget per file, in seconds.
    #[arg(long, value_name = "SECS", value_parser = parse_secs)]
    timeout: Option<Duration>,
    /// Loop bound for bounded verification.
    #[arg(long, value_name = "N")]
    bound: Option<u32>,
    /// Mutation level of the assertion-repair engine (1: the paper's level 1 plus student
    /// slips; 2: adds wider operator groups, constants and variable replacement).
    #[arg(long, value_name = "L", value_parser = clap::value_parser!(u8).range(1..=2))]
    level: Option<u8>,
    /// Largest number of changed expressions in a mutation repair.
    #[arg(long, value_name = "N")]
    max_repair_size: Option<usize>,
    /// Output format. `json`: one object per file per line, with LSP-style zero-based ranges
    /// whose `character` counts UTF-16 code units. `text`: `file:line:col: severity: message
    /// [code]` with one-based lines and columns counted in characters.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// With `--format text`: each diagnostic's related places and each fix's engine, guarantee
    /// and figures (time to find it, patch size). JSON always carries them.
    #[arg(long)]
    verbose: bool,
    /// Faults to inject for tests (`delay=MS,panic`); hidden, never needed in use.
    #[arg(long, hide = true, value_parser = analysis::Hooks::parse)]
    test_hooks: Option<analysis::Hooks>,
}

#[derive(Clone, Copy, ValueEnum)]
enum CompareArg {
    Exact,
    Whitespace,
    Values,
}

impl From<CompareArg> for Compare {
    fn from(c: CompareArg) -> Compare {
        match c {
            CompareArg::Exact => Compare::Exact,
            CompareArg::Whitespace => Compare::Whitespace,
            CompareArg::Values => Compare::Values,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Json,
    Text,
}

unsafe extern "C" {
    /// POSIX `_exit`: ends the process without running atexit handlers.
    fn _exit(status: i32) -> !;
}

fn parse_secs(s: &str) -> Result<Duration, String> {
    let secs: f64 = s.parse().map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if secs.is_finite() && secs > 0.0 && secs < 1e9 {
        Ok(Duration::from_secs_f64(secs))
    } else {
        Err("the timeout must be a positive number of seconds".into())
    }
}

/// The dataset of `mend bench typed|reference`: IntroClass unless given.
fn introclass(data: Option<PathBuf>) -> PathBuf {
    data.unwrap_or_else(|| PathBuf::from("../shared/data/introclass"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    init_logging();
    match cli.command {
        Command::Lsp { test_hooks, stdio: _ } => {
            let runtime = match tokio::runtime::Runtime::new() {
                Ok(rt) => rt,
                Err(e) => {
                    eprintln!("mend: cannot start the async runtime: {e}");
                    return ExitCode::from(1);
                }
            };
            let code = runtime.block_on(mend::server::serve_stdio(test_hooks.unwrap_or_default()));
            // Every answer is written and flushed (serve_stdio waits for its writer), and the
            // cancelled analysis threads were joined, up to a limit. A thread still inside Z3
            // past that limit must not see the C++ library's static destructors (they crashed
            // the process with SIGFPE in Z3_simplify), so leave without the atexit handlers:
            // they hold nothing that needs flushing.
            // SAFETY: `_exit` ends the process at once; nothing after it runs.
            unsafe { _exit(code) }
        }
        Command::Dap => ExitCode::from(mend::dap::serve_stdio() as u8),
        Command::Check(args) => check(args),
        Command::Bench { dir, data, budget, limit, shift, verbose, compare, flags } => {
            let mut out = std::io::stdout().lock();
            let result = match dir {
                Some(dir) if dir.as_os_str() == "typed" => mend::cli::bench::run_typed(&introclass(data), &mut out),
                Some(dir) if dir.as_os_str() == "mutation" => mend::cli::bench::run_mutation(&mut out),
                Some(dir) if dir.as_os_str() == "server" => mend::cli::bench_server::run(&mut out),
                Some(dir) if dir.as_os_str() == "compile" => {
                    let data = data.unwrap_or_else(|| PathBuf::from("../shared/data/cpack"));
                    mend::cli::bench_compile::run(&data, flags.as_ref(), verbose, &mut out)
                }
                Some(dir) if dir.as_os_str() == "mistakes" => {
                    let data = data.unwrap_or_else(|| PathBuf::from("../shared/data/cpack"));
                    mend::cli::bench_compile::learn_mistakes(&data, &mut out)
                }
                Some(dir) if dir.as_os_str() == "reference" => {
                    let settings = mend::cli::bench_reference::Settings {
                        budget: Duration::from_secs(budget),
                        limit,
                        shift,
                        default_compare: compare.into(),
                        flags,
                        at_once: mend::cli::bench_reference::AtOnce::PerPairOfCores,
                        verbose,
                    };
                    let findings = mend::cli::bench_reference::run(&introclass(data), &settings, &mut out);
                    findings.map(|_| ())
                }
                Some(dir) if dir.as_os_str() == "faults" => mend::cli::bench_faults::run(
                    &introclass(data),
                    limit.unwrap_or(10),
                    Duration::from_secs(budget),
                    verbose,
                    &mut out,
                ),
                Some(dir) if dir.as_os_str() == "debug" => mend::cli::bench_debug::run(
                    &data.unwrap_or_else(|| PathBuf::from("courses/heap")),
                    limit,
                    verbose,
                    &mut out,
                ),
                Some(dir) => mend::cli::bench::run_dir(&dir, &CheckOptions::default(), &mut out),
                None => mend::cli::bench::run_foundation(&mut out),
            };
            match result {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("mend bench: {e}");
                    ExitCode::from(1)
                }
            }
        }
    }
}

fn init_logging() {
    use tracing_subscriber::EnvFilter;
    let spec = std::env::var("MEND_LOG").ok().filter(|s| !s.trim().is_empty()).unwrap_or_else(|| "warn".into());
    let mut filter = EnvFilter::try_new(&spec).unwrap_or_else(|_| EnvFilter::new("warn"));
    // The z3 crate logs every assertion at debug level, printed as a tree: for a shared term
    // that is exponential, and `MEND_LOG=debug` ran for minutes past the budget. It logs only
    // when asked for by name (`MEND_LOG=debug,z3=debug`).
    if !spec.contains("z3") {
        filter = filter.add_directive("z3=warn".parse().expect("a valid directive"));
    }
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(false).try_init();
}

fn check(args: CheckArgs) -> ExitCode {
    let defaults = CheckOptions::default();
    let opts = CheckOptions {
        reference: args.reference,
        tests: args.tests,
        compare: args.compare.map(Compare::from),
        timeout: args.timeout,
        bound: args.bound,
        mutation_level: args.level.unwrap_or(defaults.mutation_level),
        max_repair_size: args.max_repair_size.unwrap_or(defaults.max_repair_size),
        flags: args.flags,
        ..defaults
    };
    let mut failed = false;
    let stdout = std::io::stdout();
    for file in &args.files {
        let name = file.display().to_string();
        let text = match std::fs::read(file) {
            Ok(bytes) => {
                String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
            }
            Err(e) => {
                eprintln!("mend: cannot read {name}: {e}");
                failed = true;
                if args.format == Format::Json {
                    let _ = writeln!(stdout.lock(), "{}", cli::error_json(&name, &e.to_string()));
                }
                continue;
            }
        };
        let report =
            analysis::Job::of_file(file.clone(), &text, opts.clone(), args.test_hooks.unwrap_or_default()).run();
        if report.diagnostics.iter().any(|d| d.code == analysis::INTERNAL_ERROR) {
            failed = true;
        }
        let out = match args.format {
            Format::Json => format!("{}\n", cli::report_json(&name, &text, &report)),
            Format::Text => cli::report_text(&name, &text, &report, args.verbose),
        };
        if stdout.lock().write_all(out.as_bytes()).is_err() {
            return ExitCode::from(1); // stdout closed (e.g. `| head`)
        }
    }
    if failed { ExitCode::from(1) } else { ExitCode::SUCCESS }
}
