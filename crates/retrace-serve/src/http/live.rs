//! `/api/sessions/ID/live`: server-sent events saying a session's files'
//! sizes, once at the start and again each time one changes (its size is
//! looked at every [`POLL`]: no notify crate, and the same on every
//! system). The open viewer reads the grown files again; a comment line
//! every [`KEEP_ALIVE`] finds a closed page, which ends the task.

use std::time::Duration;

use hyper::body::Bytes;
use hyper::{header, Response};

use super::body::Body;
use crate::catalog::Entry;

const POLL: Duration = Duration::from_millis(500);
const KEEP_ALIVE: Duration = Duration::from_secs(15);

pub fn events(entry: Entry) -> Response<Body> {
    let (tx, body) = Body::channel(2);
    tokio::spawn(async move {
        let mut last: Option<Vec<u64>> = None;
        let mut quiet = Duration::ZERO;
        loop {
            let files = entry.files.clone();
            let sizes = tokio::task::spawn_blocking(move || {
                files
                    .iter()
                    .map(|f| std::fs::metadata(&f.path).map_or(0, |m| m.len()))
                    .collect::<Vec<u64>>()
            })
            .await
            .unwrap_or_default();
            let line = if last.as_ref() != Some(&sizes) {
                let json = serde_json::to_string(&sizes).unwrap_or_default();
                last = Some(sizes);
                quiet = Duration::ZERO;
                Some(format!("event: sizes\ndata: {json}\n\n"))
            } else if quiet >= KEEP_ALIVE {
                quiet = Duration::ZERO;
                Some(": still here\n\n".to_owned())
            } else {
                None
            };
            if let Some(line) = line {
                if tx.send(Ok(Bytes::from(line))).await.is_err() {
                    return;
                }
            }
            if tx.is_closed() {
                return;
            }
            tokio::time::sleep(POLL).await;
            quiet += POLL;
        }
    });
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-store")
        .body(body)
        .expect("a valid response")
}
