//! `retrace`: inspect, validate and extract agent sessions.

mod cat;
mod info;
mod input;
mod migrate;
mod output;
mod progress;
mod redact;
mod show;
mod tree;
mod validate;

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use retrace_core::Format;

/// Read, replay and share the session files LLM agents write.
#[derive(Parser)]
#[command(name = "retrace", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Read every input as this format instead of detecting it: pi,
    /// claude-code, codex, events, gemini-cli, anthropic-messages,
    /// openai-chat-messages, openai-responses-items, google-contents,
    /// agentscope, generic.
    #[arg(long, global = true, value_name = "NAME", value_parser = parse_format)]
    format: Option<Format>,
}

fn parse_format(name: &str) -> Result<Format, String> {
    Format::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Format::NAMES.iter().map(|(n, _)| *n).collect();
        format!("unknown format `{name}`; known: {}", names.join(", "))
    })
}

#[derive(Subcommand)]
enum Command {
    /// Format, entries, time span, branches, models, tokens, tool calls.
    Info {
        /// Session files (`.jsonl`, `.json`, `.jsonl.gz`), directories (a
        /// Claude Code project folder, Codex rollouts, a split
        /// `events_N.jsonl` set, Gemini CLI chats) or `-`.
        #[arg(required = true)]
        paths: Vec<String>,
        /// One JSON object per input.
        #[arg(long)]
        json: bool,
        /// Replace secrets and personal data in what is printed
        /// (`[REDACTED:kind]`).
        #[arg(long)]
        redact: bool,
    },
    /// The branch tree: linear runs collapsed, rewinds and compactions marked.
    Tree {
        path: String,
        #[arg(long)]
        json: bool,
    },
    /// The conversation on one branch as readable text.
    Show {
        path: String,
        /// The leaf of the branch (an entry id, or `L<line>`); default: the
        /// last entry in file order.
        #[arg(long)]
        leaf: Option<String>,
        /// Normalized messages as JSON lines.
        #[arg(long)]
        json: bool,
        /// Replace secrets and personal data in what is printed
        /// (`[REDACTED:kind]`).
        #[arg(long)]
        redact: bool,
    },
    /// The original lines of one branch, byte for byte, as a session file.
    Cat {
        path: String,
        #[arg(long)]
        leaf: Option<String>,
    },
    /// One branch as the history of a request to a provider API.
    Migrate {
        path: String,
        /// The API to write for.
        #[arg(long, value_parser = ["anthropic", "openai", "openai-responses", "google"])]
        to: String,
        /// The leaf of the branch; default: the last entry in file order.
        #[arg(long)]
        leaf: Option<String>,
        /// Write the request body here (atomically) instead of to stdout.
        #[arg(short = 'o', long = "output", value_name = "OUT")]
        output: Option<String>,
        /// Print what the migration loses or changes, per field with
        /// counts; the body is written only with `-o`.
        #[arg(long)]
        report: bool,
        /// The report as JSON.
        #[arg(long, requires = "report")]
        json: bool,
    },
    /// Secrets and personal data replaced, streamed (`.gz` in and out);
    /// exit 1 when matches remain (or, with --check, were found).
    Redact {
        /// A JSON-lines file, `.gz`, or `-` for standard input.
        input: String,
        /// Where to write (atomically; `.gz` compresses); default stdout.
        #[arg(short, long)]
        output: Option<String>,
        /// mask (`***`), typed (`[REDACTED:kind]`) or pseudo (`<email-1>`).
        #[arg(long, default_value = "mask", value_parser = parse_mode)]
        mode: retrace_core::redact::Mode,
        /// Custom rules, allowlist and disabled kinds (TOML or JSON).
        #[arg(long)]
        rules: Option<String>,
        /// Write findings (kind, line, JSON path; never values) as JSON here.
        #[arg(long)]
        report: Option<String>,
        /// Only report; exit 1 when anything is found.
        #[arg(long)]
        check: bool,
    },
    /// Diagnostics and tool pairing; exit 0 clean, 1 problems, 2 unreadable.
    Validate {
        #[arg(required = true)]
        paths: Vec<String>,
        #[arg(long)]
        json: bool,
    },
}

/// How a command ended.
pub enum Outcome {
    Clean,
    /// Problems were found in readable input (`validate`).
    Problems,
    /// Some of several inputs could not be read (each already reported on
    /// stderr); the others were handled.
    Unreadable,
}

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// The input could not be read or is not usable: one line, exit 2.
    Input(String),
    /// Writing the output failed.
    Output(io::Error),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Output(e)
    }
}

/// One line on stderr about an input that could not be used.
pub fn report(message: &str) {
    eprintln!("retrace: {message}");
}

/// Runs `each` over every path; an unreadable input is reported and the
/// rest are still handled (like `cat a b`), ending in [`Outcome::Unreadable`].
pub fn for_each_input(
    paths: &[String],
    out: &mut impl Write,
    mut each: impl FnMut(&str, &mut dyn Write) -> Result<Outcome, Failure>,
) -> Result<Outcome, Failure> {
    let mut worst = Outcome::Clean;
    for path in paths {
        let outcome = match each(path, out) {
            Ok(o) => o,
            Err(Failure::Input(message)) => {
                // Keep stdout and stderr in order for a reader of both.
                out.flush()?;
                report(&message);
                Outcome::Unreadable
            }
            Err(e) => return Err(e),
        };
        worst = match (worst, outcome) {
            (Outcome::Unreadable, _) | (_, Outcome::Unreadable) => Outcome::Unreadable,
            (Outcome::Problems, _) | (_, Outcome::Problems) => Outcome::Problems,
            _ => Outcome::Clean,
        };
    }
    Ok(worst)
}

fn parse_mode(s: &str) -> Result<retrace_core::redact::Mode, String> {
    retrace_core::redact::Mode::parse(s)
        .ok_or_else(|| format!("`{s}` is not mask, typed or pseudo"))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    input::set_format(cli.format);
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let result = match cli.command {
        Command::Info {
            paths,
            json,
            redact,
        } => info::run(&paths, json, redact, &mut out),
        Command::Tree { path, json } => tree::run(&path, json, &mut out),
        Command::Show {
            path,
            leaf,
            json,
            redact,
        } => show::run(&path, leaf.as_deref(), json, redact, &mut out),
        Command::Cat { path, leaf } => cat::run(&path, leaf.as_deref(), &mut out),
        Command::Migrate {
            path,
            to,
            leaf,
            output,
            report,
            json,
        } => migrate::run(
            &path,
            &migrate::Options {
                to: retrace_core::Api::from_name(&to).expect("clap checked the name"),
                leaf: leaf.as_deref(),
                output: output.as_deref(),
                report,
                json,
            },
            &mut out,
        ),
        Command::Validate { paths, json } => validate::run(&paths, json, &mut out),
        Command::Redact {
            input,
            output,
            mode,
            rules,
            report,
            check,
        } => redact::run(
            &redact::Options {
                input,
                output,
                mode,
                rules,
                report,
                check,
            },
            &mut out,
        ),
    };
    let result = result.and_then(|outcome| {
        out.flush()?;
        Ok(outcome)
    });
    match result {
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::Problems) => ExitCode::from(1),
        Ok(Outcome::Unreadable) => ExitCode::from(2),
        Err(Failure::Input(message)) => {
            let _ = out.flush();
            report(&message);
            ExitCode::from(2)
        }
        // `retrace show big.jsonl | head`: the reader left; not an error.
        Err(Failure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Output(e)) => {
            eprintln!("retrace: cannot write output: {e}");
            ExitCode::from(2)
        }
    }
}
