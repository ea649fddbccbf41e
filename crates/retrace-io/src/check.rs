//! The core's deep check ([`Session::check`]) of a loaded session on
//! several threads: the entries split where the core says a run may start
//! ([`Session::check_parts`]), each run parsed by its own thread over its
//! own handles on the files, and what they found counted in order
//! ([`Session::check_join`]), so the result is the one pass's.

use retrace_core::{Check, SourceError};

use crate::load::Loaded;

/// Bodies below this many bytes are checked in one pass: threads would
/// cost more than they save.
const PARALLEL_FROM: u64 = 8 << 20;

impl Loaded {
    /// [`Session::check`] of this session, on up to `threads` threads when
    /// there are enough bodies; each thread reads through its own source
    /// ([`Loaded::another_source`]: the files opened anew, or the bytes
    /// read from standard input shared).
    pub fn check(&self, threads: usize) -> Result<Check, SourceError> {
        let session = &self.session;
        let bytes: u64 = session.entries().iter().map(|e| u64::from(e.len)).sum();
        if threads < 2 || bytes < PARALLEL_FROM {
            return session.check(&mut self.another_source());
        }
        let runs = session.check_parts(threads);
        let parts = std::thread::scope(|scope| {
            let handles: Vec<_> = runs
                .into_iter()
                .map(|run| scope.spawn(|| session.check_part(run, &mut self.another_source())))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a check thread panicked"))
                .collect::<Result<Vec<_>, _>>()
        })?;
        Ok(session.check_join(parts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load;
    use crate::open::OpenOptions;

    /// A pi session of more than `PARALLEL_FROM` bytes, its tool calls
    /// answered (some with errors, some not at all), checked on threads:
    /// what one pass finds.
    #[test]
    fn a_large_session_checked_on_threads_is_checked_as_in_one_pass() {
        let dir = std::env::temp_dir().join(format!("retrace-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("large.jsonl");
        let mut text = String::from(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}"#,
        );
        text.push('\n');
        let filler = "x".repeat(4000);
        let mut parent = "null".to_owned();
        let mut i = 0;
        while (text.len() as u64) < PARALLEL_FROM + (1 << 20) {
            let model = ["m1", "m2", "m3"][i % 3];
            let lines = [
                format!(r#""message":{{"role":"user","content":"go {filler}"}}"#),
                format!(
                    r#""message":{{"role":"assistant","model":"{model}","content":[{{"type":"toolCall","id":"c{i}","name":"read","arguments":{{}}}}],"usage":{{"input":{i},"output":2,"cacheRead":3,"cacheWrite":4,"cost":{{"total":0.01}}}}}}"#
                ),
                format!(
                    r#""message":{{"role":"toolResult","toolCallId":"c{}","isError":{},"content":[{{"type":"text","text":"{filler}"}}]}}"#,
                    if i % 7 == 0 { i + 1 } else { i },
                    i % 5 == 0
                ),
            ];
            for (k, body) in lines.iter().enumerate() {
                let id = format!("\"e{i}-{k}\"");
                text.push_str(&format!(
                    r#"{{"type":"message","id":{id},"parentId":{parent},"timestamp":"2025-01-01T00:00:01.000Z",{body}}}"#
                ));
                text.push('\n');
                parent = id;
            }
            i += 1;
        }
        std::fs::write(&path, &text).unwrap();
        let mut loaded = load(&path, &OpenOptions::default()).unwrap();
        assert!(loaded.session.check_parts(4).len() > 1);
        let threaded = loaded.check(4).unwrap();
        let one_pass = loaded.session.check(&mut loaded.source).unwrap();
        assert!(threaded.tool_calls > 1000 && threaded.pairing.results_without_call > 0);
        assert_eq!(
            serde_json::to_value(&threaded).unwrap(),
            serde_json::to_value(&one_pass).unwrap()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
