//! A response's body: bytes held whole (a page, a JSON answer, an
//! embedded file), or a stream of chunks another task sends as it reads
//! them (a file's range, the live events).

use std::pin::Pin;
use std::task::{Context, Poll};

use hyper::body::{Bytes, Frame, SizeHint};
use tokio::sync::mpsc;

pub type Chunk = Result<Bytes, std::io::Error>;

pub enum Body {
    Full(Option<Bytes>),
    Stream(mpsc::Receiver<Chunk>),
}

impl Body {
    pub fn empty() -> Body {
        Body::Full(None)
    }

    pub fn full(bytes: impl Into<Bytes>) -> Body {
        Body::Full(Some(bytes.into()))
    }

    /// A body fed through the sender returned (closed when it is dropped).
    pub fn channel(depth: usize) -> (mpsc::Sender<Chunk>, Body) {
        let (tx, rx) = mpsc::channel(depth);
        (tx, Body::Stream(rx))
    }
}

impl hyper::body::Body for Body {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        match self.get_mut() {
            Body::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            Body::Stream(rx) => rx.poll_recv(cx).map(|c| c.map(|c| c.map(Frame::data))),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, Body::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Body::Full(bytes) => SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64)),
            Body::Stream(_) => SizeHint::default(),
        }
    }
}
