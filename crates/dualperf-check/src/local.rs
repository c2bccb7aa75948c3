//! `dualperf check --local`: the OpenH323 porting study's Table I measured on this host.
//!
//! Three loopback servers (an `AF_INET` socket on 127.0.0.1, an `AF_INET6`
//! socket on `[::]` with `IPV6_V6ONLY` off, and one with it on) and three
//! clients (an `AF_INET` client to 127.0.0.1, an `AF_INET6` client to `::1`,
//! and an `AF_INET6` client to the IPv4-mapped `::ffff:127.0.0.1`). Each
//! cell records whether the TCP connection was made, which server answered
//! (each server sends a token, so a stranger listening on the same port
//! cannot be mistaken for ours), and the peer address the server saw.
//!
//! Only loopback is used. Ports are chosen by the kernel.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::thread;
use std::time::Duration;

use socket2::{Domain, Socket, Type};

use crate::CheckError;

/// How long a client waits for a connection or a token.
pub const CELL_TIMEOUT: Duration = Duration::from_secs(2);

/// The server side of Table I.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ServerKind {
    /// `AF_INET` socket bound to 127.0.0.1.
    Ipv4,
    /// `AF_INET6` socket bound to `[::]` with `IPV6_V6ONLY` = 0 (dual-stack).
    Ipv6DualStack,
    /// `AF_INET6` socket bound to `[::]` with `IPV6_V6ONLY` = 1.
    Ipv6Only,
}

/// The client side of Table I.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ClientKind {
    /// `AF_INET` socket connecting to 127.0.0.1.
    Ipv4,
    /// `AF_INET6` socket connecting to `::1`.
    Ipv6,
    /// `AF_INET6` socket connecting to the IPv4-mapped `::ffff:127.0.0.1`.
    Ipv6Mapped,
}

impl ServerKind {
    /// All servers, in column order.
    pub const ALL: [ServerKind; 3] = [
        ServerKind::Ipv4,
        ServerKind::Ipv6DualStack,
        ServerKind::Ipv6Only,
    ];

    /// Column heading.
    pub fn label(self) -> &'static str {
        match self {
            ServerKind::Ipv4 => "IPv4 server 127.0.0.1",
            ServerKind::Ipv6DualStack => "IPv6 server [::] V6ONLY=0",
            ServerKind::Ipv6Only => "IPv6 server [::] V6ONLY=1",
        }
    }
}

impl ClientKind {
    /// All clients, in row order.
    pub const ALL: [ClientKind; 3] = [ClientKind::Ipv4, ClientKind::Ipv6, ClientKind::Ipv6Mapped];

    /// Row heading.
    pub fn label(self) -> &'static str {
        match self {
            ClientKind::Ipv4 => "IPv4 client -> 127.0.0.1",
            ClientKind::Ipv6 => "IPv6 client -> ::1",
            ClientKind::Ipv6Mapped => "IPv6 client -> ::ffff:127.0.0.1",
        }
    }

    fn destination(self, port: u16) -> SocketAddr {
        let ip: IpAddr = match self {
            ClientKind::Ipv4 => Ipv4Addr::LOCALHOST.into(),
            ClientKind::Ipv6 => Ipv6Addr::LOCALHOST.into(),
            ClientKind::Ipv6Mapped => Ipv4Addr::LOCALHOST.to_ipv6_mapped().into(),
        };
        SocketAddr::new(ip, port)
    }
}

/// One cell of the matrix: what happened when `client` connected to `server`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Cell {
    /// Row.
    pub client: ClientKind,
    /// Column.
    pub server: ServerKind,
    /// The address the client connected to.
    pub destination: SocketAddr,
    /// True if the connection was made and our server's token came back.
    pub connected: bool,
    /// The client's address as the server's `accept()` reported it.
    pub server_saw: Option<SocketAddr>,
    /// True if the server saw an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`).
    pub server_saw_mapped: bool,
    /// The error if the connection failed (e.g. "Connection refused").
    pub error: Option<String>,
}

/// The whole matrix plus facts about the host.
#[derive(Clone, Debug, serde::Serialize, schemars::JsonSchema)]
pub struct LocalMatrix {
    /// Rows × columns, row-major.
    pub cells: Vec<Cell>,
    /// `/proc/sys/net/ipv6/bindv6only` (the default for `IPV6_V6ONLY`), if readable.
    pub bindv6only_default: Option<String>,
}

impl LocalMatrix {
    /// The cell for `client` × `server`.
    pub fn cell(&self, client: ClientKind, server: ServerKind) -> Option<&Cell> {
        self.cells
            .iter()
            .find(|c| c.client == client && c.server == server)
    }
}

struct Server {
    kind: ServerKind,
    port: u16,
    token: [u8; 8],
    handle: thread::JoinHandle<Vec<SocketAddr>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

fn open_server(kind: ServerKind, token: [u8; 8]) -> Result<Server, CheckError> {
    let io = |what: &str, source: std::io::Error| CheckError::Socket {
        what: format!("{what} for {}", kind.label()),
        source,
    };
    let (domain, address): (Domain, SocketAddr) = match kind {
        ServerKind::Ipv4 => (Domain::IPV4, (Ipv4Addr::LOCALHOST, 0).into()),
        _ => (Domain::IPV6, (Ipv6Addr::UNSPECIFIED, 0).into()),
    };
    let socket = Socket::new(domain, Type::STREAM, None).map_err(|e| io("socket()", e))?;
    if domain == Domain::IPV6 {
        socket
            .set_only_v6(kind == ServerKind::Ipv6Only)
            .map_err(|e| io("setsockopt(IPV6_V6ONLY)", e))?;
    }
    socket.bind(&address.into()).map_err(|e| io("bind()", e))?;
    socket.listen(16).map_err(|e| io("listen()", e))?;
    let listener: TcpListener = socket.into();
    listener
        .set_nonblocking(true)
        .map_err(|e| io("set_nonblocking", e))?;
    let port = listener
        .local_addr()
        .map_err(|e| io("getsockname()", e))?
        .port();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop_flag = stop.clone();
    let handle = thread::spawn(move || {
        let mut seen = Vec::new();
        while !stop_flag.load(std::sync::atomic::Ordering::Relaxed) {
            match listener.accept() {
                Ok((mut stream, peer)) => {
                    seen.push(peer);
                    let _ = stream.set_nonblocking(false);
                    let _ = stream.write_all(&token);
                }
                Err(_) => thread::sleep(Duration::from_millis(2)),
            }
        }
        seen
    });
    Ok(Server {
        kind,
        port,
        token,
        handle,
        stop,
    })
}

/// Measures Table I on this host with real loopback sockets.
///
/// # Errors
/// [`CheckError::Socket`] if a server socket cannot be created (for example
/// when IPv6 is disabled on this host, which the message says).
pub fn measure_local() -> Result<LocalMatrix, CheckError> {
    let mut cells = Vec::new();
    for (index, kind) in ServerKind::ALL.into_iter().enumerate() {
        let token = (u64::from(std::process::id()) << 8 | index as u64).to_be_bytes();
        let server = open_server(kind, token)?;
        let mut outcomes = Vec::new();
        for client in ClientKind::ALL {
            let destination = client.destination(server.port);
            let outcome = connect_and_read(destination, &server.token);
            // The server records peers in accept order; give it a moment.
            thread::sleep(Duration::from_millis(20));
            outcomes.push((client, destination, outcome));
        }
        server
            .stop
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let seen = server
            .handle
            .join()
            .expect("the accept loop does not panic");
        let mut seen = seen.into_iter();
        for (client, destination, outcome) in outcomes {
            let (connected, error) = match outcome {
                Ok(()) => (true, None),
                Err(e) => (false, Some(e)),
            };
            let server_saw = if connected { seen.next() } else { None };
            let server_saw_mapped = matches!(server_saw, Some(SocketAddr::V6(v6)) if v6.ip().to_ipv4_mapped().is_some());
            cells.push(Cell {
                client,
                server: server.kind,
                destination,
                connected,
                server_saw,
                server_saw_mapped,
                error,
            });
        }
    }
    let bindv6only_default = std::fs::read_to_string("/proc/sys/net/ipv6/bindv6only")
        .ok()
        .map(|s| s.trim().to_string());
    Ok(LocalMatrix {
        cells,
        bindv6only_default,
    })
}

fn connect_and_read(destination: SocketAddr, token: &[u8; 8]) -> Result<(), String> {
    let mut stream =
        TcpStream::connect_timeout(&destination, CELL_TIMEOUT).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(CELL_TIMEOUT))
        .map_err(|e| e.to_string())?;
    let mut received = [0u8; 8];
    stream
        .read_exact(&mut received)
        .map_err(|e| format!("connected but no token: {e}"))?;
    if &received != token {
        return Err("connected to a different listener on the same port".into());
    }
    Ok(())
}

/// Renders the matrix as the OpenH323 porting study's Table I (rows = clients, columns = servers).
pub fn render_table(matrix: &LocalMatrix) -> String {
    let width = 40;
    let mut out = String::from(
        "Table I, measured on this host (the OpenH323 porting study, §4): rows = client, columns = server\n\n",
    );
    let mut header = format!("{:<33}", "");
    for server in ServerKind::ALL {
        header.push_str(&format!("| {:<width$}", server.label()));
    }
    out.push_str(header.trim_end());
    out.push('\n');
    out.push_str(&"-".repeat(33 + 3 * (width + 2)));
    out.push('\n');
    for client in ClientKind::ALL {
        let mut row = format!("{:<33}", client.label());
        for server in ServerKind::ALL {
            let text = matrix
                .cell(client, server)
                .map(cell_text)
                .unwrap_or_default();
            row.push_str(&format!("| {text:<width$}"));
        }
        out.push_str(row.trim_end());
        out.push('\n');
    }
    if let Some(default) = &matrix.bindv6only_default {
        out.push_str(&format!("\nnet.ipv6.bindv6only = {default} (the IPV6_V6ONLY default for new AF_INET6 sockets)\n"));
    }
    out
}

fn cell_text(cell: &Cell) -> String {
    match (&cell.server_saw, &cell.error) {
        (Some(peer), _) if cell.server_saw_mapped => format!("ok, IPv4; sees mapped {}", peer.ip()),
        (Some(SocketAddr::V4(peer)), _) => format!("ok, IPv4; sees {}", peer.ip()),
        (Some(peer), _) => format!("ok, IPv6; sees {}", peer.ip()),
        (None, Some(error)) => format!("fails: {}", short_error(error)),
        (None, None) => "fails".to_string(),
    }
}

fn short_error(error: &str) -> String {
    let text = error.split(" (os error").next().unwrap_or(error);
    text.chars().take(26).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs for real on loopback. Linux semantics are asserted: a dual-stack
    /// IPv6 server accepts IPv4 clients and sees them as `::ffff:127.0.0.1`,
    /// a V6ONLY server refuses them, an AF_INET6 client reaches an IPv4
    /// server only through the mapped address.
    #[test]
    fn loopback_matrix_matches_linux_dual_stack_semantics() {
        let matrix = match measure_local() {
            Ok(m) => m,
            Err(e)
                if std::env::var_os("DUALPERF_REQUIRE_PRIVILEGED").is_none()
                    && e.to_string().contains("IPv6") =>
            {
                eprintln!("skipped: {e}");
                return;
            }
            Err(e) => panic!("{e}"),
        };
        let cell = |c, s| matrix.cell(c, s).unwrap().clone();
        let v4_v4 = cell(ClientKind::Ipv4, ServerKind::Ipv4);
        assert!(v4_v4.connected);
        assert_eq!(
            v4_v4.server_saw.unwrap().ip(),
            IpAddr::from(Ipv4Addr::LOCALHOST)
        );
        let v4_dual = cell(ClientKind::Ipv4, ServerKind::Ipv6DualStack);
        assert!(
            v4_dual.connected && v4_dual.server_saw_mapped,
            "{v4_dual:?}"
        );
        assert_eq!(
            v4_dual.server_saw.unwrap().ip().to_string(),
            "::ffff:127.0.0.1"
        );
        assert!(!cell(ClientKind::Ipv4, ServerKind::Ipv6Only).connected);
        assert!(!cell(ClientKind::Ipv6, ServerKind::Ipv4).connected);
        let mapped_v4 = cell(ClientKind::Ipv6Mapped, ServerKind::Ipv4);
        assert!(mapped_v4.connected, "{mapped_v4:?}");
        assert_eq!(
            mapped_v4.server_saw.unwrap().ip(),
            IpAddr::from(Ipv4Addr::LOCALHOST)
        );
        let v6_dual = cell(ClientKind::Ipv6, ServerKind::Ipv6DualStack);
        assert!(v6_dual.connected && !v6_dual.server_saw_mapped);
        assert_eq!(
            v6_dual.server_saw.unwrap().ip(),
            IpAddr::from(Ipv6Addr::LOCALHOST)
        );
        assert!(cell(ClientKind::Ipv6, ServerKind::Ipv6Only).connected);
        assert!(!cell(ClientKind::Ipv6Mapped, ServerKind::Ipv6Only).connected);
        let table = render_table(&matrix);
        assert!(table.contains("sees mapped ::ffff:127.0.0.1"), "{table}");
    }
}
