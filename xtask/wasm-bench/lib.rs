//! A push interface to `retrace_core::Reader` for the Node benchmark: the
//! host writes a chunk into `buffer`, calls `push`, and at the end `finish`.

use std::cell::RefCell;

use retrace_core::{Reader, Session};

#[derive(Default)]
struct State {
    buffer: Vec<u8>,
    reader: Option<Reader>,
    session: Option<Session>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::default();
}

/// A buffer of `len` bytes for the host to fill; reused across calls.
#[no_mangle]
pub extern "C" fn buffer(len: usize) -> *mut u8 {
    STATE.with_borrow_mut(|s| {
        s.buffer.resize(len, 0);
        s.buffer.as_mut_ptr()
    })
}

/// Starts a new session (dropping the previous one).
#[no_mangle]
pub extern "C" fn begin() {
    STATE.with_borrow_mut(|s| {
        s.session = None;
        let mut reader = Reader::new();
        reader.begin_file("bench.jsonl");
        s.reader = Some(reader);
    });
}

/// Pushes the first `len` bytes of the buffer.
#[no_mangle]
pub extern "C" fn push(len: usize) {
    STATE.with_borrow_mut(|s| {
        let State { buffer, reader, .. } = s;
        if let Some(r) = reader.as_mut() {
            r.push(&buffer[..len]);
        }
    });
}

/// Builds the session; returns its number of entries.
#[no_mangle]
pub extern "C" fn finish() -> u32 {
    STATE.with_borrow_mut(|s| {
        let session = s.reader.take().map(Reader::finish);
        let n = session.as_ref().map_or(0, |s| s.entries().len());
        s.session = session;
        n as u32
    })
}

/// Leaves a person could pick, of the finished session.
#[no_mangle]
pub extern "C" fn tips() -> u32 {
    STATE.with_borrow(|s| s.session.as_ref().map_or(0, |s| s.tree().tips().len()) as u32)
}

/// Real branch points of the finished session.
#[no_mangle]
pub extern "C" fn real_branch_points() -> u32 {
    STATE.with_borrow(|s| {
        s.session
            .as_ref()
            .map_or(0, |s| s.tree().real_branch_points().count()) as u32
    })
}

// ---- redaction -------------------------------------------------------

#[derive(Default)]
struct RedactState {
    redactor: Option<retrace_core::redact::Redactor>,
    out: Vec<u8>,
    findings: u64,
}

thread_local! {
    static REDACT: RefCell<RedactState> = RefCell::default();
}

/// Starts a redaction: mode 0 mask, 1 typed, 2 pseudo; built-in rules.
#[no_mangle]
pub extern "C" fn redact_begin(mode: u32) {
    use retrace_core::redact::{Mode, Redactor, Rules};
    let mode = match mode {
        1 => Mode::Typed,
        2 => Mode::Pseudo,
        _ => Mode::Mask,
    };
    REDACT.with_borrow_mut(|r| {
        r.redactor = Some(Redactor::new(std::sync::Arc::new(Rules::builtin()), mode));
        r.out.clear();
        r.findings = 0;
    });
}

/// Redacts the first `len` bytes of the buffer; returns the length of the
/// output, which `redact_out` points at until the next call.
#[no_mangle]
pub extern "C" fn redact_push(len: usize) -> usize {
    STATE.with_borrow(|s| {
        REDACT.with_borrow_mut(|r| {
            let RedactState {
                redactor,
                out,
                findings,
            } = r;
            out.clear();
            if let Some(red) = redactor.as_mut() {
                red.push(&s.buffer[..len], out);
                *findings += red.drain_findings().count() as u64;
            }
            out.len()
        })
    })
}

/// Redacts what is left (a last line without newline); returns its length.
#[no_mangle]
pub extern "C" fn redact_finish() -> usize {
    REDACT.with_borrow_mut(|r| {
        let RedactState {
            redactor,
            out,
            findings,
        } = r;
        out.clear();
        if let Some(red) = redactor.as_mut() {
            red.finish(out);
            *findings += red.drain_findings().count() as u64;
        }
        out.len()
    })
}

/// The output of the last `redact_push` / `redact_finish`.
#[no_mangle]
pub extern "C" fn redact_out() -> *const u8 {
    REDACT.with_borrow(|r| r.out.as_ptr())
}

/// Findings so far.
#[no_mangle]
pub extern "C" fn redact_findings() -> u32 {
    REDACT.with_borrow(|r| r.findings as u32)
}
