//! The opening exchange of a control session as two sans-IO state machines
//! (quinn-proto is the model): bytes received and the current time go in,
//! [`ServerAction`]s / [`ClientAction`]s come out. Neither machine touches a
//! socket or reads a clock; the drivers do ([`super::client_handshake`] over
//! a blocking [`super::Channel`], the server's non-blocking accept loop in
//! `crate::server`), so every path — slow peers, garbage, wrong keys, a
//! full server — is testable without sockets.
//!
//! ```text
//! client                                     server
//!   Hello{magic, version}          ──>       (checked on raw JSON)
//!                                  <──       Welcome{challenge: Some}      with a key
//!   Authenticate{hmac}             ──>       (verified in constant time)
//!                                            Admit → a session slot?
//!                                  <──       Authenticated | Error{busy}
//!
//!                                            without a key: Admit right after the hello,
//!                                  <──       Welcome{challenge: None} | Error{busy}
//! ```
//!
//! The server machine has **one deadline for the whole handshake**
//! (authentication included), fixed when the connection arrives; a peer
//! trickling one byte at a time gets no more time than a silent one.
//! Handshake frames are small, so their length is bounded by
//! [`MAX_HANDSHAKE_FRAME_BYTES`] and a pending handshake holds at most that
//! much memory.

use std::time::{Duration, Instant};

use super::auth;
use super::frame::{encode_frame, FrameDecoder, FrameError};
use super::message::{self, check_hello, HelloCheck, Message, MAGIC, PROTOCOL_VERSION};
use crate::error::EngineError;

/// Largest handshake frame accepted, bytes. A hello is about 60 bytes and an
/// authentication about 90; a future hello with more fields still fits.
pub const MAX_HANDSHAKE_FRAME_BYTES: u32 = 16 * 1024;

/// What the server's handshake needs to know, shared by every connection.
#[derive(Clone, Debug)]
pub struct ServerHandshakeConfig {
    /// Time from the connection's arrival to a complete handshake.
    pub timeout: Duration,
    /// Shared key the client must prove; `None`: open server.
    pub auth_key: Option<Vec<u8>>,
    /// This kernel's boot id, sent in the welcome.
    pub boot_id: String,
}

/// What the server's driver must do next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerAction {
    /// Write these bytes (whole frames) to the peer, in order.
    Send(Vec<u8>),
    /// The peer proved what it had to: take a session slot if one is free
    /// and answer with [`ServerHandshake::admit`]. No slot is taken before.
    Admit,
    /// Done: hand the connection (after the bytes queued so far) to a session.
    Established {
        /// True when the peer proved the shared key.
        authenticated: bool,
        /// Bytes received beyond the handshake (a client that pipelines).
        leftover: Vec<u8>,
    },
    /// Close the connection after the bytes queued so far; `reason` is for
    /// the log (it may quote the peer: escape it).
    Close {
        /// Why, for the log.
        reason: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum ServerState {
    AwaitHello,
    AwaitAuthenticate { challenge: String },
    AwaitAdmission { authenticated: bool },
    Done,
}

/// The server half of the handshake of one connection.
#[derive(Debug)]
pub struct ServerHandshake {
    state: ServerState,
    deadline: Instant,
    timeout: Duration,
    decoder: FrameDecoder,
    leftover: Vec<u8>,
}

fn frame_of(message: &Message) -> Vec<u8> {
    // Control messages of the handshake are far below the frame limit.
    encode_frame(&message::encode(message)).unwrap_or_default()
}

fn refusal(reason: impl Into<String>) -> Vec<ServerAction> {
    let reason = reason.into();
    vec![
        ServerAction::Send(frame_of(&Message::Error {
            message: reason.clone(),
        })),
        ServerAction::Close { reason },
    ]
}

impl ServerHandshake {
    /// A handshake for a connection that arrived at `now`.
    pub fn new(now: Instant, timeout: Duration) -> Self {
        ServerHandshake {
            state: ServerState::AwaitHello,
            // A timeout beyond what `Instant` can hold means "a year".
            deadline: now
                .checked_add(timeout)
                .or_else(|| now.checked_add(Duration::from_secs(365 * 86_400)))
                .unwrap_or(now),
            timeout,
            decoder: FrameDecoder::new(MAX_HANDSHAKE_FRAME_BYTES),
            leftover: Vec::new(),
        }
    }

    /// True while the machine waits for the client's answer to its
    /// challenge (the server's accept loop delays this step for a source
    /// that recently failed it).
    pub fn awaiting_authentication(&self) -> bool {
        matches!(self.state, ServerState::AwaitAuthenticate { .. })
    }

    /// When the handshake fails if it is not complete.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// True once the machine has nothing more to do (established or closed).
    pub fn is_done(&self) -> bool {
        self.state == ServerState::Done
    }

    /// Bytes the driver should read next: a driver that reads at most this
    /// many leaves everything after the handshake in the socket. Zero while
    /// waiting for admission or when done.
    pub fn wanted(&self) -> usize {
        match self.state {
            ServerState::AwaitHello | ServerState::AwaitAuthenticate { .. } => {
                self.decoder.wanted()
            }
            _ => 0,
        }
    }

    /// Feeds bytes received at `now`.
    pub fn handle_bytes(
        &mut self,
        now: Instant,
        bytes: &[u8],
        config: &ServerHandshakeConfig,
    ) -> Vec<ServerAction> {
        if now >= self.deadline {
            return self.handle_timeout(now);
        }
        let mut rest = bytes;
        let mut actions = Vec::new();
        while !rest.is_empty() {
            if !matches!(
                self.state,
                ServerState::AwaitHello | ServerState::AwaitAuthenticate { .. }
            ) {
                // Pipelined bytes after the last handshake frame: the session's.
                if self.state != ServerState::Done {
                    self.leftover.extend_from_slice(rest);
                }
                break;
            }
            let (used, frame) = self.decoder.push(rest);
            rest = &rest[used..];
            match frame {
                None => {}
                Some(Err(error)) => return self.fail(actions, error.to_string()),
                Some(Ok(body)) => {
                    actions.extend(self.handle_frame(&body, config));
                    if self.state == ServerState::Done {
                        return actions;
                    }
                }
            }
        }
        actions
    }

    fn fail(&mut self, mut actions: Vec<ServerAction>, reason: String) -> Vec<ServerAction> {
        self.state = ServerState::Done;
        actions.extend(refusal(reason));
        actions
    }

    fn handle_frame(&mut self, body: &[u8], config: &ServerHandshakeConfig) -> Vec<ServerAction> {
        match std::mem::replace(&mut self.state, ServerState::Done) {
            ServerState::AwaitHello => {
                if let HelloCheck::Refused(reason) = check_hello(body) {
                    return refusal(reason);
                }
                match &config.auth_key {
                    Some(_) => {
                        let challenge = auth::new_challenge();
                        self.state = ServerState::AwaitAuthenticate {
                            challenge: challenge.clone(),
                        };
                        // The boot id waits for the proof: an unauthenticated
                        // peer learns nothing about this host.
                        vec![ServerAction::Send(frame_of(&Message::Welcome {
                            version: PROTOCOL_VERSION,
                            challenge: Some(challenge),
                            boot_id: String::new(),
                        }))]
                    }
                    None => {
                        self.state = ServerState::AwaitAdmission {
                            authenticated: false,
                        };
                        vec![ServerAction::Admit]
                    }
                }
            }
            ServerState::AwaitAuthenticate { challenge } => {
                let response = match message::decode(body) {
                    Ok(Message::Authenticate { response }) => response,
                    Ok(_) => return refusal("expected authenticate"),
                    Err(error) => return refusal(error),
                };
                let key = config.auth_key.as_deref().unwrap_or_default();
                if !auth::verify(key, &challenge, &response) {
                    return refusal("authentication failed: wrong key");
                }
                self.state = ServerState::AwaitAdmission {
                    authenticated: true,
                };
                vec![ServerAction::Admit]
            }
            other => {
                self.state = other;
                Vec::new()
            }
        }
    }

    /// The driver's answer to [`ServerAction::Admit`]: `Ok` when it took a
    /// session slot, `Err(text)` (e.g. "server busy …") when it could not.
    pub fn admit(
        &mut self,
        admitted: Result<(), String>,
        config: &ServerHandshakeConfig,
    ) -> Vec<ServerAction> {
        let ServerState::AwaitAdmission { authenticated } = self.state else {
            return Vec::new();
        };
        self.state = ServerState::Done;
        if let Err(reason) = admitted {
            return refusal(reason);
        }
        let answer = if authenticated {
            Message::Authenticated {
                boot_id: config.boot_id.clone(),
            }
        } else {
            Message::Welcome {
                version: PROTOCOL_VERSION,
                challenge: None,
                boot_id: config.boot_id.clone(),
            }
        };
        vec![
            ServerAction::Send(frame_of(&answer)),
            ServerAction::Established {
                authenticated,
                leftover: std::mem::take(&mut self.leftover),
            },
        ]
    }

    /// The peer closed its side at `now`.
    pub fn handle_eof(&mut self, _now: Instant) -> Vec<ServerAction> {
        if self.state == ServerState::Done {
            return Vec::new();
        }
        let reason = match self.state {
            ServerState::AwaitAdmission { .. } => FrameError::Closed.to_string(),
            _ => self.decoder.end_of_stream().to_string(),
        };
        self.state = ServerState::Done;
        vec![ServerAction::Close { reason }]
    }

    /// Time passed; fails the handshake once `now` reaches the deadline.
    pub fn handle_timeout(&mut self, now: Instant) -> Vec<ServerAction> {
        if self.state == ServerState::Done || now < self.deadline {
            return Vec::new();
        }
        self.state = ServerState::Done;
        refusal(format!(
            "handshake timed out: not completed within {} s (serve --handshake-timeout)",
            self.timeout.as_secs_f64()
        ))
    }
}

/// What the client learnt in the handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerWelcome {
    /// The server kernel's boot id (empty when the server did not say).
    pub boot_id: String,
}

/// What the client's driver must do next.
#[derive(Debug)]
pub enum ClientAction {
    /// Write these bytes (a whole frame).
    Send(Vec<u8>),
    /// The handshake is complete.
    Established(ServerWelcome),
    /// The handshake failed; close.
    Failed(EngineError),
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum ClientState {
    Start,
    AwaitWelcome,
    AwaitAuthenticated { boot_id: String },
    Done,
}

/// The client half of the handshake.
#[derive(Debug)]
pub struct ClientHandshake {
    state: ClientState,
    auth_key: Option<Vec<u8>>,
    decoder: FrameDecoder,
}

impl ClientHandshake {
    /// A handshake proving `auth_key` if the server asks for one.
    pub fn new(auth_key: Option<&[u8]>) -> Self {
        ClientHandshake {
            state: ClientState::Start,
            auth_key: auth_key.map(<[u8]>::to_vec),
            decoder: FrameDecoder::new(super::MAX_FRAME_BYTES),
        }
    }

    /// The opening: the hello.
    pub fn start(&mut self) -> Vec<ClientAction> {
        if self.state != ClientState::Start {
            return Vec::new();
        }
        self.state = ClientState::AwaitWelcome;
        vec![ClientAction::Send(frame_of(&Message::Hello {
            magic: MAGIC.into(),
            version: PROTOCOL_VERSION,
        }))]
    }

    /// Bytes to read next without reading past the handshake (0 when done).
    pub fn wanted(&self) -> usize {
        match self.state {
            ClientState::AwaitWelcome | ClientState::AwaitAuthenticated { .. } => {
                self.decoder.wanted()
            }
            _ => 0,
        }
    }

    /// Feeds bytes from the server.
    pub fn handle_bytes(&mut self, bytes: &[u8]) -> Vec<ClientAction> {
        let mut rest = bytes;
        let mut actions = Vec::new();
        while !rest.is_empty() && self.wanted() > 0 {
            let (used, frame) = self.decoder.push(rest);
            rest = &rest[used..];
            match frame {
                None => {}
                Some(Err(error)) => {
                    self.state = ClientState::Done;
                    actions.push(ClientAction::Failed(EngineError::Protocol(
                        super::error_chain(&error),
                    )));
                }
                Some(Ok(body)) => actions.extend(self.handle_frame(&body)),
            }
        }
        actions
    }

    /// The server closed the connection.
    pub fn handle_eof(&mut self) -> Vec<ClientAction> {
        if matches!(self.state, ClientState::Done | ClientState::Start) {
            return Vec::new();
        }
        self.state = ClientState::Done;
        vec![ClientAction::Failed(EngineError::Protocol(
            super::error_chain(&self.decoder.end_of_stream()),
        ))]
    }

    fn handle_frame(&mut self, body: &[u8]) -> Vec<ClientAction> {
        let state = std::mem::replace(&mut self.state, ClientState::Done);
        let message = match message::decode(body) {
            Ok(Message::Error { message }) => {
                return vec![ClientAction::Failed(EngineError::Refused(message))]
            }
            Ok(message) => message,
            Err(error) => return vec![ClientAction::Failed(EngineError::Protocol(error))],
        };
        let unexpected = |what: &str, message: &Message| {
            let text = format!("{message:?}");
            vec![ClientAction::Failed(EngineError::Protocol(format!(
                "expected {what}, got {}",
                super::truncate(&text, 80)
            )))]
        };
        match (state, message) {
            (
                ClientState::AwaitWelcome,
                Message::Welcome {
                    challenge: None,
                    boot_id,
                    ..
                },
            ) => vec![ClientAction::Established(ServerWelcome { boot_id })],
            (
                ClientState::AwaitWelcome,
                Message::Welcome {
                    challenge: Some(challenge),
                    boot_id,
                    ..
                },
            ) => {
                let Some(key) = &self.auth_key else {
                    return vec![ClientAction::Failed(EngineError::Refused(
                        "the server requires a shared key; pass --auth-key-file FILE or set DUALPERF_AUTH_KEY (or --auth-key)"
                            .into(),
                    ))];
                };
                self.state = ClientState::AwaitAuthenticated { boot_id };
                vec![ClientAction::Send(frame_of(&Message::Authenticate {
                    response: auth::respond(key, &challenge),
                }))]
            }
            (ClientState::AwaitWelcome, other) => unexpected("welcome", &other),
            (
                ClientState::AwaitAuthenticated { boot_id },
                Message::Authenticated { boot_id: proven },
            ) => {
                // Older servers sent the boot id in the welcome only.
                let boot_id = if proven.is_empty() { boot_id } else { proven };
                vec![ClientAction::Established(ServerWelcome { boot_id })]
            }
            (ClientState::AwaitAuthenticated { .. }, other) => unexpected("authenticated", &other),
            (state, _) => {
                self.state = state;
                Vec::new()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(key: Option<&[u8]>) -> ServerHandshakeConfig {
        ServerHandshakeConfig {
            timeout: Duration::from_secs(5),
            auth_key: key.map(<[u8]>::to_vec),
            boot_id: "boot".into(),
        }
    }

    /// Runs both machines against each other in memory; `admit` is the
    /// server driver's answer to `Admit`.
    fn converse(
        server_key: Option<&[u8]>,
        client_key: Option<&[u8]>,
        admit: Result<(), String>,
    ) -> (Vec<ServerAction>, Vec<ClientAction>) {
        let config = config(server_key);
        let now = Instant::now();
        let mut server = ServerHandshake::new(now, config.timeout);
        let mut client = ClientHandshake::new(client_key);
        let (mut server_log, mut client_log) = (Vec::new(), Vec::new());
        let mut to_server: Vec<u8> = Vec::new();
        for action in client.start() {
            if let ClientAction::Send(bytes) = action {
                to_server.extend(bytes);
            }
        }
        for _ in 0..10 {
            let mut to_client = Vec::new();
            let mut actions = server.handle_bytes(now, &std::mem::take(&mut to_server), &config);
            if actions.contains(&ServerAction::Admit) {
                actions.extend(server.admit(admit.clone(), &config));
            }
            for action in &actions {
                if let ServerAction::Send(bytes) = action {
                    to_client.extend(bytes);
                }
            }
            server_log.extend(actions);
            for action in client.handle_bytes(&to_client) {
                match action {
                    ClientAction::Send(bytes) => to_server.extend(bytes),
                    other => client_log.push(other),
                }
            }
            if to_server.is_empty() {
                break;
            }
        }
        (server_log, client_log)
    }

    #[test]
    fn an_open_server_admits_after_the_hello_and_sends_its_boot_id() {
        let (server, client) = converse(None, None, Ok(()));
        assert!(server.contains(&ServerAction::Established {
            authenticated: false,
            leftover: vec![]
        }));
        assert!(
            matches!(&client[..], [ClientAction::Established(w)] if w.boot_id == "boot"),
            "{client:?}"
        );
    }

    #[test]
    fn the_right_key_is_admitted_and_learns_the_boot_id_only_then() {
        let (server, client) = converse(Some(b"k"), Some(b"k"), Ok(()));
        assert!(server.contains(&ServerAction::Established {
            authenticated: true,
            leftover: vec![]
        }));
        // The boot id comes with the proof, not with the challenge.
        assert!(
            matches!(&client[..], [ClientAction::Established(w)] if w.boot_id == "boot"),
            "{client:?}"
        );
        let challenge = server.iter().find_map(|a| match a {
            ServerAction::Send(bytes) => message::decode(&bytes[4..]).ok(),
            _ => None,
        });
        assert!(
            matches!(&challenge, Some(Message::Welcome { challenge: Some(_), boot_id, .. }) if boot_id.is_empty()),
            "{challenge:?}"
        );
    }

    #[test]
    fn a_wrong_key_is_refused_and_never_admitted() {
        let (server, client) = converse(Some(b"k"), Some(b"guess"), Ok(()));
        assert!(!server.contains(&ServerAction::Admit));
        assert!(server.iter().any(
            |a| matches!(a, ServerAction::Close { reason } if reason.contains("authentication failed"))
        ));
        assert!(
            matches!(&client[..], [ClientAction::Failed(EngineError::Refused(t))] if t.contains("authentication failed"))
        );
    }

    #[test]
    fn a_missing_key_names_the_ways_to_give_one() {
        let (_, client) = converse(Some(b"k"), None, Ok(()));
        assert!(
            matches!(&client[..], [ClientAction::Failed(EngineError::Refused(t))] if t.contains("--auth-key-file") && t.contains("DUALPERF_AUTH_KEY"))
        );
    }

    #[test]
    fn a_full_server_refuses_after_the_handshake_with_the_reason() {
        let (server, client) = converse(None, None, Err("server busy".into()));
        assert!(!server
            .iter()
            .any(|a| matches!(a, ServerAction::Established { .. })));
        assert!(
            matches!(&client[..], [ClientAction::Failed(EngineError::Refused(t))] if t == "server busy")
        );
    }

    #[test]
    fn one_deadline_covers_the_whole_handshake_however_the_bytes_trickle() {
        let config = config(Some(b"k"));
        let start = Instant::now();
        let mut server = ServerHandshake::new(start, config.timeout);
        // A 4-byte length, then one byte every 3 s: each read is "on time".
        assert!(server
            .handle_bytes(start, &[0, 0, 0, 60], &config)
            .is_empty());
        assert!(server
            .handle_bytes(start + Duration::from_secs(3), b"{", &config)
            .is_empty());
        assert!(server
            .handle_timeout(start + Duration::from_secs(4))
            .is_empty());
        let late = server.handle_bytes(start + Duration::from_secs(6), b"\"", &config);
        assert!(
            late.iter().any(
                |a| matches!(a, ServerAction::Close { reason } if reason.contains("within 5 s"))
            ),
            "{late:?}"
        );
        assert!(server.is_done());
        assert!(server
            .handle_timeout(start + Duration::from_secs(7))
            .is_empty());
    }

    #[test]
    fn the_driver_is_told_never_to_read_past_the_handshake() {
        let config = config(None);
        let now = Instant::now();
        let mut server = ServerHandshake::new(now, config.timeout);
        assert_eq!(server.wanted(), 4);
        let hello = frame_of(&Message::Hello {
            magic: MAGIC.into(),
            version: PROTOCOL_VERSION,
        });
        let _ = server.handle_bytes(now, &hello[..4], &config);
        assert_eq!(server.wanted(), hello.len() - 4);
        // A pipelining client: the request rides along and is handed over.
        let mut rest = hello[4..].to_vec();
        rest.extend_from_slice(b"next");
        assert_eq!(
            server.handle_bytes(now, &rest, &config),
            vec![ServerAction::Admit]
        );
        assert_eq!(server.wanted(), 0);
        let actions = server.admit(Ok(()), &config);
        assert!(actions.contains(&ServerAction::Established {
            authenticated: false,
            leftover: b"next".to_vec()
        }));
    }

    #[test]
    fn oversized_garbage_and_early_close_are_refused_with_reasons() {
        let config = config(None);
        let now = Instant::now();
        let mut server = ServerHandshake::new(now, config.timeout);
        let actions = server.handle_bytes(now, &[0x7f, 0xff, 0xff, 0xff], &config);
        assert!(
            matches!(&actions[1], ServerAction::Close { reason } if reason.contains("oversized"))
        );
        let mut server = ServerHandshake::new(now, config.timeout);
        let actions = server.handle_bytes(now, b"\x00\x00\x00\x03abc", &config);
        assert!(
            matches!(&actions[1], ServerAction::Close { reason } if reason.contains("not JSON"))
        );
        let mut server = ServerHandshake::new(now, config.timeout);
        let _ = server.handle_bytes(now, &[0, 0, 0, 9, b'{'], &config);
        assert!(
            matches!(&server.handle_eof(now)[..], [ServerAction::Close { reason }] if reason.contains("truncated"))
        );
    }

    #[test]
    fn an_absurd_timeout_does_not_overflow() {
        let now = Instant::now();
        let server = ServerHandshake::new(now, Duration::MAX);
        assert!(server.deadline() > now + Duration::from_secs(86_400));
    }
}
