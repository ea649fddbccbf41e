//! Progress on stderr, behind [`retrace_io::Progress`]: retrace-io reports
//! bytes read, a [`ProgressBar`] draws them. The
//! [`Printer`](crate::printer::Printer) decides whether one is drawn.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

/// A bar of bytes read. Redraws when the percentage changes; several
/// reader threads report.
pub(crate) struct ProgressBar {
    total: u64,
    done: AtomicU64,
    shown: AtomicU64,
}

impl ProgressBar {
    pub fn new(total: u64) -> ProgressBar {
        ProgressBar {
            total: total.max(1),
            done: AtomicU64::new(0),
            shown: AtomicU64::new(u64::MAX),
        }
    }

    /// Clears the bar's line.
    pub fn finish(&self) {
        eprint!("\r{:60}\r", "");
    }
}

impl retrace_io::Progress for ProgressBar {
    fn on_bytes(&self, bytes: u64) {
        let done = self.done.fetch_add(bytes, Ordering::Relaxed) + bytes;
        let percent = (done * 100 / self.total).min(100);
        if self.shown.swap(percent, Ordering::Relaxed) != percent {
            let filled = (percent / 4) as usize;
            let mut err = std::io::stderr().lock();
            let _ = write!(
                err,
                "\rreading [{}{}] {percent:3}% of {} MB",
                "#".repeat(filled),
                " ".repeat(25 - filled),
                self.total / 1_000_000
            );
            let _ = err.flush();
        }
    }
}
