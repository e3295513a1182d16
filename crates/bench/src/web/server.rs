//! The socket side of `bench serve`: HTTP/1.0 and 1.1 by hyper on a small tokio runtime, so
//! no client can hold up another. Each connection is a task of its own; pages that need the
//! database are made on a bounded pool of threads (`workers.rs`: SQLite and the postgres
//! client block) and answered 503 within [`Limits::database_timeout`] when it does not
//! answer; everything else (404, 405, a malformed query) is answered without it. Every
//! connection has limits:
//!
//! - a request head (line and headers) must arrive within [`Limits::head_timeout`]
//!   (slowloris) and fit in [`Limits::head_bytes`] (431 and close);
//! - a request line longer than [`Limits::request_line_bytes`] is answered 414 and closed;
//! - a connection with nothing to read for [`Limits::idle_timeout`], or that does not read
//!   its answers for [`Limits::write_timeout`] (pipelining without reading), is closed;
//! - a connection is kept alive for [`Limits::keep_alive_requests`] requests and
//!   [`Limits::keep_alive_lifetime`] at most;
//! - one client address may hold [`Limits::connections_per_client`], and at most
//!   [`Limits::max_connections`] are served at once: when all are taken the one idle the
//!   longest is closed for the newcomer (`connections.rs`).

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, CONNECTION};
use hyper::server::conn::http1;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

use super::connections::{Admitted, Connections};
use super::workers::Workers;
use super::{route, Page};
use crate::db::{Bench, BenchError, Location, Result};

/// What one client may take of the server.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The longest request target answered (414 beyond).
    pub request_line_bytes: usize,
    /// The most a request head, line and headers, may take (431 beyond; at least 8 KiB).
    pub head_bytes: usize,
    /// How long a client may take to send a request head.
    pub head_timeout: Duration,
    /// How long a connection may send nothing before it is closed.
    pub idle_timeout: Duration,
    /// How long an answer may wait for a client that does not read it.
    pub write_timeout: Duration,
    /// Connections served at once.
    pub max_connections: usize,
    /// Connections one client address may hold (more are closed at once).
    pub connections_per_client: usize,
    /// Requests answered on one connection before it is closed.
    pub keep_alive_requests: u64,
    /// How long a connection is kept alive: the answer after this closes it.
    pub keep_alive_lifetime: Duration,
    /// How long a page waits for the database before it is answered 503.
    pub database_timeout: Duration,
    /// Threads making pages.
    pub page_workers: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            request_line_bytes: 8 << 10,
            head_bytes: 64 << 10,
            head_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(10),
            max_connections: 256,
            connections_per_client: 32,
            keep_alive_requests: 100,
            keep_alive_lifetime: Duration::from_secs(60),
            database_timeout: Duration::from_secs(5),
            page_workers: 4,
        }
    }
}

/// Serve `db` on `listen` with `limits` until the process ends; see [`super::serve`].
pub fn serve_with(
    db: &Path,
    listen: &str,
    limits: Limits,
    ready: impl FnOnce(SocketAddr),
) -> Result<()> {
    let location = Location::parse(db)?;
    drop(Bench::open_read_only_at(&location)?);
    let cannot = |e: io::Error| BenchError::Input(format!("cannot listen on {listen}: {e}"));
    let listener = std::net::TcpListener::bind(listen).map_err(cannot)?;
    listener.set_nonblocking(true).map_err(cannot)?;
    let addr = listener.local_addr().map_err(cannot)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(limits.page_workers.max(1))
        .thread_name("bench-serve")
        .enable_all()
        .build()
        .map_err(|e| BenchError::Input(format!("cannot start the web server: {e}")))?;
    let listener = {
        let _in_runtime = runtime.enter();
        tokio::net::TcpListener::from_std(listener).map_err(cannot)?
    };
    ready(addr);
    let workers = Arc::new(Workers::new(location, &limits));
    runtime.block_on(accept_loop(listener, workers, limits));
    Ok(())
}

async fn accept_loop(listener: tokio::net::TcpListener, workers: Arc<Workers>, limits: Limits) {
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.head_timeout)
        .max_buf_size(limits.head_bytes.max(8192))
        // Header names as the pages always sent them (Content-Type), not lower case.
        .title_case_headers(true)
        .keep_alive(true);
    let connections = Connections::new(&limits);
    let limits = Arc::new(limits);
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of file descriptors, or a connection reset before it was accepted.
                eprintln!("bench serve: accepting a connection: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        // A client over its share is closed at once (dropped).
        let Some(admitted) = connections.admit(peer.ip()).await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let io = TokioIo::new(Deadlines::new(
            stream,
            limits.idle_timeout,
            limits.write_timeout,
        ));
        tokio::spawn(serve_connection(
            http.clone(),
            io,
            admitted,
            Arc::clone(&workers),
            Arc::clone(&limits),
        ));
    }
}

/// One connection's requests, until the client goes, a limit closes it, or it is asked to
/// close to make room (at once when idle, after its answer when busy).
async fn serve_connection(
    http: http1::Builder,
    io: TokioIo<Deadlines<tokio::net::TcpStream>>,
    admitted: Admitted,
    workers: Arc<Workers>,
    limits: Arc<Limits>,
) {
    let admitted = Arc::new(admitted);
    let opened = Instant::now();
    let served = Arc::new(AtomicU64::new(0));
    let service = {
        let admitted = Arc::clone(&admitted);
        hyper::service::service_fn(move |req| {
            let (admitted, workers, limits, served) = (
                Arc::clone(&admitted),
                Arc::clone(&workers),
                Arc::clone(&limits),
                Arc::clone(&served),
            );
            async move {
                admitted.busy();
                let mut r = handle(req, &workers, &limits).await;
                let last = served.fetch_add(1, Ordering::Relaxed) + 1 >= limits.keep_alive_requests
                    || opened.elapsed() >= limits.keep_alive_lifetime;
                if last {
                    r.headers_mut()
                        .insert(CONNECTION, HeaderValue::from_static("close"));
                }
                admitted.idle();
                Ok::<_, Infallible>(r)
            }
        })
    };
    let mut connection = pin!(http.serve_connection(io, service));
    let mut asked = pin!(admitted.asked_to_close());
    let mut closing = false;
    // A client that misbehaves or goes away is its own business.
    let _ = std::future::poll_fn(|cx| {
        if !closing && asked.as_mut().poll(cx).is_ready() {
            closing = true;
            connection.as_mut().graceful_shutdown();
        }
        connection.as_mut().poll(cx)
    })
    .await;
}

async fn handle(
    req: Request<Incoming>,
    workers: &Workers,
    limits: &Limits,
) -> Response<Full<Bytes>> {
    let target = req
        .uri()
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    // hyper refuses a head that overflows its buffer; one that arrived in a single read can
    // be larger, so the size is checked here too.
    let head_bytes: usize = req
        .headers()
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum();
    let (page, close) = if head_bytes > limits.head_bytes {
        let page = Page::error(
            431,
            &format!(
                "The request's headers are too large: the Bench takes up to {} KiB.",
                limits.head_bytes >> 10
            ),
        );
        (page, true)
    } else if req.uri().to_string().len() > limits.request_line_bytes {
        let page = Page::error(
            414,
            &format!(
                "The address is too long: the Bench takes up to {} KiB.",
                limits.request_line_bytes >> 10
            ),
        );
        (page, true)
    } else {
        match route(req.method().as_str(), &target) {
            Ok(route) => (workers.page(route).await, false),
            Err(page) => (page, false),
        }
    };
    let mut r = response(page);
    if close {
        r.headers_mut()
            .insert(CONNECTION, HeaderValue::from_static("close"));
    }
    r
}

/// The response for a page (hyper leaves the body out for HEAD).
fn response(page: Page) -> Response<Full<Bytes>> {
    let mut r = Response::builder()
        .status(page.status)
        .header("Content-Type", page.content_type)
        .header("Cache-Control", "no-store")
        .header("X-Content-Type-Options", "nosniff")
        .header("Referrer-Policy", "no-referrer")
        .header(
            "Content-Security-Policy",
            "default-src 'none'; connect-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
             img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        );
    if page.status == 405 {
        r = r.header("Allow", "GET, HEAD");
    }
    if page.status == 503 {
        r = r.header("Retry-After", "5");
    }
    r.body(Full::new(Bytes::from(page.body)))
        .expect("status and headers are valid")
}

/// A connection that fails when it has had nothing to read for `idle`, or could not write
/// for `write`: the timeouts a blocking socket would have, for a task.
struct Deadlines<S> {
    inner: S,
    idle: Duration,
    write: Duration,
    read_timer: Pin<Box<Sleep>>,
    read_armed: bool,
    write_timer: Pin<Box<Sleep>>,
    write_armed: bool,
}

impl<S> Deadlines<S> {
    fn new(inner: S, idle: Duration, write: Duration) -> Deadlines<S> {
        Deadlines {
            inner,
            idle,
            write,
            read_timer: Box::pin(tokio::time::sleep(idle)),
            read_armed: false,
            write_timer: Box::pin(tokio::time::sleep(write)),
            write_armed: false,
        }
    }
}

/// `Pending` until the timer (armed now if it is not) fires, then a timeout error.
fn expire(
    timer: &mut Pin<Box<Sleep>>,
    armed: &mut bool,
    after: Duration,
    what: &str,
    cx: &mut Context<'_>,
) -> Poll<io::Error> {
    if !*armed {
        timer.as_mut().reset(Instant::now() + after);
        *armed = true;
    }
    match timer.as_mut().poll(cx) {
        Poll::Ready(()) => Poll::Ready(io::Error::new(io::ErrorKind::TimedOut, what.to_string())),
        Poll::Pending => Poll::Pending,
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Deadlines<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        match Pin::new(&mut me.inner).poll_read(cx, buf) {
            Poll::Ready(r) => {
                me.read_armed = false;
                Poll::Ready(r)
            }
            Poll::Pending => expire(
                &mut me.read_timer,
                &mut me.read_armed,
                me.idle,
                "idle connection",
                cx,
            )
            .map(Err),
        }
    }
}

impl<S: AsyncWrite + Unpin> Deadlines<S> {
    fn writing<T>(
        &mut self,
        cx: &mut Context<'_>,
        op: impl FnOnce(Pin<&mut S>, &mut Context<'_>) -> Poll<io::Result<T>>,
    ) -> Poll<io::Result<T>> {
        match op(Pin::new(&mut self.inner), cx) {
            Poll::Ready(r) => {
                self.write_armed = false;
                Poll::Ready(r)
            }
            Poll::Pending => expire(
                &mut self.write_timer,
                &mut self.write_armed,
                self.write,
                "the client does not read its answers",
                cx,
            )
            .map(Err),
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Deadlines<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().writing(cx, |s, cx| s.poll_write(cx, buf))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().writing(cx, |s, cx| s.poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().writing(cx, |s, cx| s.poll_shutdown(cx))
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .writing(cx, |s, cx| s.poll_write_vectored(cx, bufs))
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
