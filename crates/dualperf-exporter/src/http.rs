//! A small HTTP/1.1 server for `/metrics` on a std `TcpListener`: one
//! thread, one request per connection, bounded reads and timeouts, so a
//! slow or hostile client can hold it for at most a few seconds and never
//! make it allocate more than a request head. No async runtime.
//!
//! - `GET /metrics` (and `HEAD`): OpenMetrics when the client asks for it
//!   (Prometheus does), else the Prometheus 0.0.4 text;
//! - `GET /probe?target=…&module=…` (when modules are configured): one
//!   comparison now ([`crate::probe`]), answered from a thread of its own
//!   so `/metrics` stays responsive while it measures;
//! - `GET /`: a line of HTML that links to `/metrics`;
//! - anything else: 404, or 405 for other methods.

use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::openmetrics::Format;
use crate::probe::Prober;

/// Produces the exposition in a format.
pub type Render = Arc<dyn Fn(Format) -> String + Send + Sync>;

/// Longest request head read.
const MAX_HEAD: usize = 8 * 1024;
/// How long a client may take to send its request or read the answer.
const CLIENT_TIMEOUT: Duration = Duration::from_secs(3);

/// A bound `/metrics` listener, not yet serving.
#[derive(Debug)]
pub struct MetricsServer {
    listener: TcpListener,
}

/// A `/metrics` server running on its own thread; stops when dropped.
#[derive(Debug)]
pub struct MetricsHandle {
    address: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl MetricsServer {
    /// Binds `address` (port 0 picks a free port).
    ///
    /// # Errors
    /// When the address is in use or not on this host.
    pub fn bind(address: SocketAddr) -> io::Result<MetricsServer> {
        Ok(MetricsServer {
            listener: TcpListener::bind(address)?,
        })
    }

    /// The bound address.
    ///
    /// # Errors
    /// As `TcpListener::local_addr`.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves on a new thread until the handle is stopped or dropped.
    ///
    /// # Errors
    /// When the bound address cannot be read or the thread not started.
    pub fn spawn(self, render: Render) -> io::Result<MetricsHandle> {
        self.spawn_with_probe(render, None)
    }

    /// [`MetricsServer::spawn`], also answering `/probe` with `prober`.
    ///
    /// # Errors
    /// As [`MetricsServer::spawn`].
    pub fn spawn_with_probe(
        self,
        render: Render,
        prober: Option<Arc<Prober>>,
    ) -> io::Result<MetricsHandle> {
        let address = self.listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::Builder::new()
            .name("metrics-http".into())
            .spawn(move || {
                for connection in self.listener.incoming() {
                    if flag.load(Ordering::SeqCst) {
                        break;
                    }
                    if let Ok(stream) = connection {
                        let _ = serve(stream, &render, prober.as_ref());
                    }
                }
            })?;
        Ok(MetricsHandle {
            address,
            stop,
            thread: Some(thread),
        })
    }
}

impl MetricsHandle {
    /// The address served.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Stops serving and waits for the thread.
    pub fn stop(&mut self) {
        let Some(thread) = self.thread.take() else {
            return;
        };
        self.stop.store(true, Ordering::SeqCst);
        // Wake the blocking accept with a connection of our own.
        let mut wake = self.address;
        if wake.ip().is_unspecified() {
            wake.set_ip(match wake.ip() {
                IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
                IpAddr::V6(_) => IpAddr::V6(Ipv6Addr::LOCALHOST),
            });
        }
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
        let _ = thread.join();
    }
}

impl Drop for MetricsHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Reads one request from `stream` and answers it.
fn serve(mut stream: TcpStream, render: &Render, prober: Option<&Arc<Prober>>) -> io::Result<()> {
    stream.set_read_timeout(Some(CLIENT_TIMEOUT))?;
    stream.set_write_timeout(Some(CLIENT_TIMEOUT))?;
    let mut head = Vec::with_capacity(1024);
    let mut buffer = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let read = stream.read(&mut buffer)?;
        if read == 0 {
            return Ok(());
        }
        head.extend_from_slice(&buffer[..read]);
        if head.len() > MAX_HEAD {
            return respond(
                &mut stream,
                "431 Request Header Fields Too Large",
                "text/plain; charset=utf-8",
                b"request head too large\n",
                true,
            );
        }
    }
    let head = String::from_utf8_lossy(&head);
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or("");
    let mut words = request_line.split(' ');
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let accept = lines
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("accept"))
        .map(|(_, value)| value.trim().to_string());
    let send_body = method == "GET";
    if method != "GET" && method != "HEAD" {
        return respond(
            &mut stream,
            "405 Method Not Allowed",
            "text/plain; charset=utf-8",
            b"only GET and HEAD\n",
            true,
        );
    }
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    match path {
        "/probe" if prober.is_some() => {
            let format = Format::negotiate(accept.as_deref());
            let (prober, query) = (prober.cloned(), query.to_string());
            std::thread::Builder::new()
                .name("probe-http".into())
                .spawn(move || {
                    if let Some(prober) = prober {
                        // The answer may take the module's timeout to come.
                        let _ = stream.set_write_timeout(Some(CLIENT_TIMEOUT));
                        let answer = prober.answer(&query, format);
                        let _ = respond(
                            &mut stream,
                            answer.status,
                            answer.content_type,
                            answer.body.as_bytes(),
                            send_body,
                        );
                    }
                })
                .map(|_| ())
        }
        "/metrics" => {
            let format = Format::negotiate(accept.as_deref());
            let body = render(format);
            respond(&mut stream, "200 OK", format.content_type(), body.as_bytes(), send_body)
        }
        "/" => respond(
            &mut stream,
            "200 OK",
            "text/html; charset=utf-8",
            b"<!doctype html><title>dualperf exporter</title><h1>dualperf exporter</h1><p><a href=\"/metrics\">/metrics</a></p>\n",
            send_body,
        ),
        _ => respond(&mut stream, "404 Not Found", "text/plain; charset=utf-8", b"not found: try /metrics\n", send_body),
    }
}

fn respond(
    stream: &mut TcpStream,
    status: &str,
    content_type: &str,
    body: &[u8],
    send_body: bool,
) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    if send_body {
        stream.write_all(body)?;
    }
    stream.flush()
}

/// `GET path` from `address` with an optional `Accept` header; returns
/// the status line, the `Content-Type` and the body. For tests and the
/// exporter's own checks; loopback only in this project.
///
/// # Errors
/// When the connection fails or the answer is not HTTP.
pub fn get(
    address: SocketAddr,
    path: &str,
    accept: Option<&str>,
) -> io::Result<(String, String, String)> {
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(5))?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let accept = accept
        .map(|a| format!("Accept: {a}\r\n"))
        .unwrap_or_default();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\n{accept}Connection: close\r\n\r\n"
    )?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer)?;
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no HTTP head"))?;
    let head = String::from_utf8_lossy(&answer[..split]);
    let body = &answer[split + 4..];
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap_or("").to_string();
    let headers: Vec<(&str, &str)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim(), value.trim()))
        .collect();
    let header = |wanted: &str| {
        headers
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(wanted))
            .map(|(_, value)| value.to_string())
    };
    let content_type = header("content-type").unwrap_or_default();
    let body = match header("transfer-encoding") {
        Some(coding) if coding.eq_ignore_ascii_case("chunked") => dechunk(body)?,
        _ => body.to_vec(),
    };
    let body = String::from_utf8_lossy(&body).into_owned();
    Ok((status, content_type, body))
}

/// The body of a chunked transfer (RFC 9112 §7.1).
fn dechunk(mut chunked: &[u8]) -> io::Result<Vec<u8>> {
    let invalid = || io::Error::new(io::ErrorKind::InvalidData, "bad chunked body");
    let mut body = Vec::with_capacity(chunked.len());
    loop {
        let end = chunked
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(invalid)?;
        let line = String::from_utf8_lossy(&chunked[..end]);
        let size_text = line.split(';').next().unwrap_or("").trim().to_string();
        let size = usize::from_str_radix(&size_text, 16).map_err(|_| invalid())?;
        let rest = &chunked[end + 2..];
        if size == 0 {
            return Ok(body);
        }
        body.extend_from_slice(rest.get(..size).ok_or_else(invalid)?);
        chunked = rest
            .get(size..)
            .and_then(|r| r.strip_prefix(b"\r\n"))
            .ok_or_else(invalid)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> MetricsHandle {
        let server = MetricsServer::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        server
            .spawn(Arc::new(|format| match format {
                Format::OpenMetrics => "om\n# EOF\n".to_string(),
                Format::PrometheusText => "text\n".to_string(),
            }))
            .unwrap()
    }

    #[test]
    fn metrics_are_negotiated_and_other_paths_are_404() {
        let mut handle = server();
        let address = handle.address();
        let (status, kind, body) = get(address, "/metrics", None).unwrap();
        assert_eq!(
            (status.as_str(), body.as_str()),
            ("HTTP/1.1 200 OK", "text\n")
        );
        assert!(kind.starts_with("text/plain; version=0.0.4"));
        let (_, kind, body) = get(
            address,
            "/metrics",
            Some("application/openmetrics-text;version=1.0.0,text/plain;q=0.5"),
        )
        .unwrap();
        assert!(kind.starts_with("application/openmetrics-text; version=1.0.0"));
        assert_eq!(body, "om\n# EOF\n");
        assert!(get(address, "/", None).unwrap().2.contains("/metrics"));
        assert_eq!(
            get(address, "/nope", None).unwrap().0,
            "HTTP/1.1 404 Not Found"
        );
        assert_eq!(
            dechunk(b"4\r\nWiki\r\n7;x=y\r\npedia i\r\n0\r\n\r\n").unwrap(),
            b"Wikipedia i"
        );
        assert!(dechunk(b"zz\r\n").is_err());
        handle.stop();
        assert!(TcpStream::connect_timeout(&address, Duration::from_millis(500)).is_err());
    }

    #[test]
    fn other_methods_and_silly_heads_are_refused() {
        let handle = server();
        let mut stream = TcpStream::connect(handle.address()).unwrap();
        stream.write_all(b"POST /metrics HTTP/1.1\r\n\r\n").unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 405"), "{answer}");
        let mut stream = TcpStream::connect(handle.address()).unwrap();
        let long = format!("GET /metrics HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(10_000));
        let _ = stream.write_all(long.as_bytes());
        let mut answer = String::new();
        let _ = stream.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
    }
}
