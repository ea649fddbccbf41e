//! `/api/sessions/ID/live`: server-sent `sizes` events giving a session's
//! files' sizes (`N,N,…`, in the order `/api/sessions/ID` lists them): at
//! the start, as soon as one changes (sizes are looked at every [`POLL`]:
//! no notify crate, and the same on every system), and again every
//! [`REPEAT`] unchanged, so a page that was busy when they changed learns
//! them later, and a closed page is found (the send fails), which ends the
//! task.

use std::time::Duration;

use hyper::body::Bytes;
use hyper::{header, Response};

use super::body::Body;
use crate::catalog::Entry;

const POLL: Duration = Duration::from_millis(500);
const REPEAT: Duration = Duration::from_secs(3);

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
            if last.as_ref() != Some(&sizes) || quiet >= REPEAT {
                let list: Vec<String> = sizes.iter().map(u64::to_string).collect();
                let line = format!("event: sizes\ndata: {}\n\n", list.join(","));
                if tx.send(Ok(Bytes::from(line))).await.is_err() {
                    return;
                }
                last = Some(sizes);
                quiet = Duration::ZERO;
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
