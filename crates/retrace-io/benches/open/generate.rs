//! Seeded, deterministic generators of large Codex-shaped and events-shaped
//! sessions for the open benchmark (the shared Python tools make pi and
//! Claude Code files only).
//!
//! The shapes follow real files: a Codex 0.5x–0.14x rollout is mostly
//! `token_count` events (each written twice), reasoning items with
//! kilobytes of encrypted content, `function_call`s with JSON-string
//! arguments and outputs from a few hundred bytes to hundreds of kilobytes,
//! a `turn_context` per turn, now and then a rollback or a compaction with
//! its replacement history. An event stream alternates state transitions,
//! LLM calls with chat-list prompts that grow with the run, and tool calls.

use std::io::{self, BufWriter, Write};
use std::path::Path;

/// SplitMix64: small, fast, and the same numbers everywhere.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    pub fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }

    /// A size with a long tail: mostly near `typical`, sometimes up to
    /// `max` (log-uniform above the typical size).
    pub fn size(&mut self, typical: u64, max: u64) -> usize {
        if self.chance(8) {
            let span = (max as f64 / typical as f64).ln();
            let f = (self.below(1 << 20) as f64 / f64::from(1 << 20) * span).exp();
            (typical as f64 * f) as usize
        } else {
            (typical / 4 + self.below(typical * 3 / 2)) as usize
        }
    }
}

const WORDS: &[&str] = &[
    "the", "file", "function", "returns", "error", "config", "test", "build", "value", "session",
    "parser", "index", "should", "cannot", "because", "update", "module", "request", "user",
    "branch", "cache", "output", "line", "path", "struct", "field", "handler", "retry", "async",
    "token", "check", "missing", "fixed", "query", "schema", "render", "option", "result",
];

/// Prose of about `len` bytes, with newlines and the odd quote to escape.
fn prose(rng: &mut Rng, len: usize) -> String {
    let mut s = String::with_capacity(len + 16);
    while s.len() < len {
        s.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
        match rng.below(40) {
            0 => s.push_str(".\n"),
            1 => s.push_str(" \""),
            2 => s.push_str("\" "),
            3 => s.push_str(", "),
            _ => s.push(' '),
        }
    }
    s
}

/// Code-like tool output of about `len` bytes.
fn code(rng: &mut Rng, len: usize) -> String {
    let mut s = String::with_capacity(len + 64);
    let mut n = 1;
    while s.len() < len {
        let indent = "    ".repeat(rng.below(4) as usize);
        let w1 = WORDS[rng.below(WORDS.len() as u64) as usize];
        let w2 = WORDS[rng.below(WORDS.len() as u64) as usize];
        s.push_str(&format!(
            "{n:4}\t{indent}let {w1}_{w2} = {w1}(\"{w2}\", {});\n",
            rng.below(1000)
        ));
        n += 1;
    }
    s
}

/// Base64-looking bytes (encrypted reasoning).
fn blob(rng: &mut Rng, len: usize) -> String {
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(len + 8);
    s.push_str("gAAAAA");
    while s.len() < len {
        let r = rng.next();
        for i in 0..8 {
            s.push(B64[((r >> (i * 6)) & 63) as usize] as char);
        }
    }
    s
}

fn json(s: &str) -> String {
    serde_json::to_string(s).expect("a string serializes")
}

/// ISO time `ms` after a fixed start.
fn time(ms: u64) -> String {
    let t = 1_763_400_000_000i64 + ms as i64;
    retrace_core::format_rfc3339_ms(t)
}

/// Writes a Codex rollout of about `mb` megabytes.
pub fn codex(path: &Path, mb: u64, seed: u64) -> io::Result<()> {
    let mut rng = Rng::new(seed);
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let target = mb * 1_000_000;
    let mut written = 0u64;
    let mut ms = 0u64;
    let line = |out: &mut BufWriter<std::fs::File>, s: String| -> io::Result<u64> {
        out.write_all(s.as_bytes())?;
        out.write_all(b"\n")?;
        Ok(s.len() as u64 + 1)
    };
    let id = format!("0199{:04x}-0000-7000-8000-{:012x}", seed & 0xffff, seed);
    written += line(
        &mut out,
        format!(
            r#"{{"timestamp":"{}","type":"session_meta","payload":{{"id":"{id}","timestamp":"{}","cwd":"/home/user/project","originator":"codex_cli_rs","cli_version":"0.142.0","source":"cli","model_provider":"openai","base_instructions":{{"text":{}}},"git":{{"commit_hash":"0f022a043b3f8ca67224e1c56d5b85e28a81b910","branch":"main"}}}}}}"#,
            time(ms),
            time(ms),
            json(&prose(&mut rng, 15_000))
        ),
    )?;
    let (mut input, mut cached, mut output) = (0u64, 0u64, 0u64);
    let mut turn = 0u64;
    while written < target {
        turn += 1;
        ms += 20_000 + rng.below(120_000);
        written += line(
            &mut out,
            format!(
                r#"{{"timestamp":"{}","type":"event_msg","payload":{{"type":"task_started","turn_id":"t{turn}","model_context_window":258400}}}}"#,
                time(ms)
            ),
        )?;
        written += line(
            &mut out,
            format!(
                r#"{{"timestamp":"{}","type":"turn_context","payload":{{"turn_id":"t{turn}","cwd":"/home/user/project","approval_policy":"on-request","sandbox_policy":{{"type":"workspace-write","network_access":false}},"model":"gpt-5.2-codex","effort":"medium","summary":"auto"}}}}"#,
                time(ms)
            ),
        )?;
        let prompt = sized(&mut rng, prose, 300, 8_000);
        written += line(
            &mut out,
            format!(
                r#"{{"timestamp":"{}","type":"response_item","payload":{{"type":"message","role":"user","content":[{{"type":"input_text","text":{}}}]}}}}"#,
                time(ms),
                json(&prompt)
            ),
        )?;
        written += line(
            &mut out,
            format!(
                r#"{{"timestamp":"{}","type":"event_msg","payload":{{"type":"user_message","message":{},"images":[]}}}}"#,
                time(ms),
                json(&prompt)
            ),
        )?;
        for step in 0..1 + rng.below(25) {
            ms += 1_000 + rng.below(20_000);
            let summary = sized(&mut rng, prose, 60, 60 + 300);
            written += line(
                &mut out,
                format!(
                    r#"{{"timestamp":"{}","type":"event_msg","payload":{{"type":"agent_reasoning","text":{}}}}}"#,
                    time(ms),
                    json(&summary)
                ),
            )?;
            written += line(
                &mut out,
                format!(
                    r#"{{"timestamp":"{}","type":"response_item","payload":{{"type":"reasoning","summary":[{{"type":"summary_text","text":{}}}],"content":null,"encrypted_content":"{}"}}}}"#,
                    time(ms),
                    json(&summary),
                    sized(&mut rng, blob, 1_500, 12_000)
                ),
            )?;
            let args = format!(
                r#"{{"cmd":{},"workdir":"/home/user/project","yield_time_ms":10000}}"#,
                json(&format!(
                    "rg -n {} src/{}",
                    WORDS[rng.below(20) as usize],
                    WORDS[rng.below(20) as usize]
                ))
            );
            let call = format!("call_{turn}_{step}");
            written += line(
                &mut out,
                format!(
                    r#"{{"timestamp":"{}","type":"response_item","payload":{{"type":"function_call","name":"exec_command","arguments":{},"call_id":"{call}"}}}}"#,
                    time(ms),
                    json(&args)
                ),
            )?;
            let (li, lc, lo) = (
                8_000 + rng.below(4_000),
                rng.below(8_000),
                50 + rng.below(800),
            );
            input += li;
            cached += lc.min(li);
            output += lo;
            let usage = |i: u64, c: u64, o: u64| {
                format!(
                    r#"{{"input_tokens":{i},"cached_input_tokens":{c},"output_tokens":{o},"reasoning_output_tokens":0,"total_tokens":{}}}"#,
                    i + o
                )
            };
            let count = format!(
                r#"{{"timestamp":"{}","type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{},"last_token_usage":{},"model_context_window":258400}},"rate_limits":{{"primary":{{"used_percent":12.0,"window_minutes":300,"resets_at":1763422724}}}}}}}}"#,
                time(ms),
                usage(input, cached, output),
                usage(li, lc.min(li), lo)
            );
            written += line(&mut out, count.clone())?;
            let code_out = sized(&mut rng, code, 1_500, 200_000);
            let exit = if rng.chance(12) { 1 } else { 0 };
            let text = format!("Chunk ID: {:06x}\nWall time: 0.{:04} seconds\nProcess exited with code {exit}\nOriginal token count: {}\nOutput:\n{code_out}", rng.below(1 << 24), rng.below(10_000), code_out.len() / 4);
            written += line(
                &mut out,
                format!(
                    r#"{{"timestamp":"{}","type":"response_item","payload":{{"type":"function_call_output","call_id":"{call}","output":{}}}}}"#,
                    time(ms),
                    json(&text)
                ),
            )?;
            written += line(&mut out, count)?;
        }
        let answer = sized(&mut rng, prose, 600, 6_000);
        written += line(
            &mut out,
            format!(
                r#"{{"timestamp":"{}","type":"response_item","payload":{{"type":"message","role":"assistant","content":[{{"type":"output_text","text":{}}}],"phase":"final_answer"}}}}"#,
                time(ms),
                json(&answer)
            ),
        )?;
        written += line(
            &mut out,
            format!(
                r#"{{"timestamp":"{}","type":"event_msg","payload":{{"type":"agent_message","message":{},"phase":"final_answer"}}}}"#,
                time(ms),
                json(&answer)
            ),
        )?;
        written += line(
            &mut out,
            format!(
                r#"{{"timestamp":"{}","type":"event_msg","payload":{{"type":"task_complete","turn_id":"t{turn}","last_agent_message":null}}}}"#,
                time(ms)
            ),
        )?;
        if rng.chance(40) {
            written += line(
                &mut out,
                format!(
                    r#"{{"timestamp":"{}","type":"event_msg","payload":{{"type":"thread_rolled_back","num_turns":{}}}}}"#,
                    time(ms + 1),
                    1 + rng.below(2)
                ),
            )?;
        }
        if rng.chance(150) {
            let history: Vec<String> = (0..20)
                .map(|_| format!(r#"{{"type":"message","role":"user","content":[{{"type":"input_text","text":{}}}]}}"#, json(&prose(&mut rng, 800))))
                .collect();
            written += line(
                &mut out,
                format!(
                    r#"{{"timestamp":"{}","type":"compacted","payload":{{"message":{},"replacement_history":[{}]}}}}"#,
                    time(ms + 2),
                    json(&prose(&mut rng, 2_000)),
                    history.join(",")
                ),
            )?;
        }
    }
    out.flush()
}

/// Text from `make` of a long-tailed size (see [`Rng::size`]).
fn sized(rng: &mut Rng, make: fn(&mut Rng, usize) -> String, typical: u64, max: u64) -> String {
    let len = rng.size(typical, max);
    make(rng, len)
}

/// Writes an event stream of about `mb` megabytes.
pub fn events(path: &Path, mb: u64, seed: u64) -> io::Result<()> {
    let mut rng = Rng::new(seed);
    let mut out = BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let target = mb * 1_000_000;
    let mut written = 0u64;
    let mut ms = 0u64;
    let line = |out: &mut BufWriter<std::fs::File>,
                kind: &str,
                ms: u64,
                data: String|
     -> io::Result<u64> {
        let s = format!(
            r#"{{"event_type":"{kind}","timestamp":"{}","data":{data}}}"#,
            time(ms)
        );
        out.write_all(s.as_bytes())?;
        out.write_all(b"\n")?;
        Ok(s.len() as u64 + 1)
    };
    const NODES: &[&str] = &[
        "planner",
        "researcher",
        "coder",
        "reviewer",
        "tools",
        "responder",
    ];
    while written < target {
        // One run: a question, then steps through the graph.
        ms += 60_000;
        written += line(
            &mut out,
            "user_input",
            ms,
            format!(
                r#"{{"message":{}}}"#,
                json(&sized(&mut rng, prose, 200, 4_000))
            ),
        )?;
        let mut node = "start";
        let mut history: Vec<String> = Vec::new();
        for _ in 0..3 + rng.below(30) {
            let next = NODES[rng.below(NODES.len() as u64) as usize];
            ms += 10 + rng.below(50);
            written += line(
                &mut out,
                "state_transition",
                ms,
                format!(
                    r#"{{"from_node":"{node}","to_node":"{next}","state_diff":{{"step":{},"notes":{}}}}}"#,
                    rng.below(100),
                    json(&sized(&mut rng, prose, 80, 80 + 200))
                ),
            )?;
            node = next;
            if rng.chance(2) {
                history.push(format!(
                    r#"{{"role":"user","content":{}}}"#,
                    json(&sized(&mut rng, prose, 300, 3_000))
                ));
                if history.len() > 12 {
                    history.remove(0);
                }
                let prompt = format!(
                    r#"[{{"role":"system","content":{}}},{}]"#,
                    json(&prose(&mut rng, 1_200)),
                    history.join(",")
                );
                let response = sized(&mut rng, prose, 500, 5_000);
                ms += 300 + rng.below(3_000);
                written += line(
                    &mut out,
                    "llm_call",
                    ms,
                    format!(
                        r#"{{"model":"gpt-4o-mini","prompt":{prompt},"response":{},"token_usage":{{"prompt_tokens":{},"completion_tokens":{},"total_tokens":{}}},"duration":{:.2}}}"#,
                        json(&response),
                        prompt.len() / 4,
                        response.len() / 4,
                        (prompt.len() + response.len()) / 4,
                        rng.below(400) as f64 / 100.0
                    ),
                )?;
                history.push(format!(
                    r#"{{"role":"assistant","content":{}}}"#,
                    json(&response)
                ));
            } else {
                let failed = rng.chance(15);
                let output = if failed {
                    "null".to_owned()
                } else {
                    json(&sized(&mut rng, code, 1_000, 60_000))
                };
                let error = if failed {
                    json("timeout after 30s")
                } else {
                    "null".to_owned()
                };
                ms += 50 + rng.below(2_000);
                written += line(
                    &mut out,
                    "tool_call",
                    ms,
                    format!(
                        r#"{{"tool_name":"{}","parameters":{{"query":{},"limit":{}}},"output":{output},"error":{error},"duration":{:.2}}}"#,
                        WORDS[rng.below(10) as usize],
                        json(&prose(&mut rng, 60)),
                        rng.below(50),
                        rng.below(300) as f64 / 100.0
                    ),
                )?;
            }
        }
        written += line(
            &mut out,
            "final_output",
            ms + 5,
            format!(
                r#"{{"output":{},"stream":false}}"#,
                json(&sized(&mut rng, prose, 600, 4_000))
            ),
        )?;
    }
    out.flush()
}

/// A legacy Gemini CLI session of about `mb` MB: the messages of a real one
/// repeated, each with a fresh id, pretty-printed like Gemini CLI writes.
pub fn gemini(root: &Path, out: &Path, mb: u64) -> io::Result<()> {
    let sample = root.join(
        "../shared/corpus/gemini-cli/mischa-thisness__M-Gemini/Archives/session-2026-01-10T01-38-1deca764.json",
    );
    eprintln!("  from {}", sample.display());
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&sample)?)?;
    let messages = doc["messages"].as_array().cloned().unwrap_or_default();
    let mut w = BufWriter::new(std::fs::File::create(out)?);
    let head = format!(
        "{{\n  \"sessionId\": {},\n  \"projectHash\": {},\n  \"startTime\": {},\n  \"messages\": [\n",
        doc["sessionId"], doc["projectHash"], doc["startTime"]
    );
    w.write_all(head.as_bytes())?;
    let (mut written, mut n) = (head.len() as u64, 0u64);
    while written < mb * 1_000_000 && !messages.is_empty() {
        for m in &messages {
            let mut m = m.clone();
            m["id"] = format!("{}-{n}", m["id"].as_str().unwrap_or("m")).into();
            let text = serde_json::to_string_pretty(&m)?.replace('\n', "\n    ");
            let sep = if n == 0 { "    " } else { ",\n    " };
            w.write_all(sep.as_bytes())?;
            w.write_all(text.as_bytes())?;
            written += (sep.len() + text.len()) as u64;
            n += 1;
        }
    }
    w.write_all(b"\n  ]\n}\n")?;
    w.flush()
}
