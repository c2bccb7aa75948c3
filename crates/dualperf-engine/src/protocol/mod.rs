//! The control channel: one TCP connection per session carrying
//! length-prefixed JSON messages ([`frame`], [`message`]), opened with a
//! versioned handshake and an optional HMAC challenge ([`auth`]).
//!
//! The handshake is two sans-IO state machines ([`handshake`]); this module
//! holds the blocking driver of the client half ([`client_handshake`]) and
//! [`Channel`], which wraps the socket. The server drives its half from a
//! non-blocking accept loop (`crate::server`).
//!
//! Timeouts are deadlines for **whole messages**: a peer that trickles one
//! byte at a time gets no more time for a frame than a silent one, both
//! when the channel reads and when it writes.

pub mod auth;
pub mod frame;
pub mod handshake;
pub mod message;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

pub use frame::{FrameDecoder, FrameError, MAX_FRAME_BYTES};
pub use handshake::{ClientAction, ClientHandshake, ServerWelcome};
pub use message::{
    check_hello, HelloCheck, Message, Ready, ServerReport, StopReport, TestRequest, MAGIC,
    PROTOCOL_VERSION,
};

use crate::error::{EngineError, Result};

/// A control connection: sends and receives whole [`Message`]s.
#[derive(Debug)]
pub struct Channel {
    stream: TcpStream,
    timeout: Option<Duration>,
    decoder: FrameDecoder,
    /// Bytes read before the channel existed (handed over by a handshake).
    pending: Vec<u8>,
}

/// The instant `timeout` from now (`None`: no deadline; absurdly far: a year).
fn deadline_after(timeout: Option<Duration>) -> Option<Instant> {
    let now = Instant::now();
    timeout.map(|t| {
        now.checked_add(t)
            .or_else(|| now.checked_add(Duration::from_secs(365 * 86_400)))
            .unwrap_or(now)
    })
}

/// Time left until `deadline`, `None` for no deadline, `Err` when passed.
fn time_left(deadline: Option<Instant>) -> std::result::Result<Option<Duration>, ()> {
    match deadline {
        None => Ok(None),
        Some(deadline) => {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                Err(())
            } else {
                Ok(Some(left))
            }
        }
    }
}

fn is_timeout(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}

impl Channel {
    /// Wraps a connected control socket (Nagle off: messages are small and
    /// latency matters).
    pub fn new(stream: TcpStream) -> Self {
        Self::with_received(stream, Vec::new())
    }

    /// Wraps a control socket of which `received` was already read (bytes a
    /// pipelining peer sent right after its handshake).
    pub fn with_received(stream: TcpStream, received: Vec<u8>) -> Self {
        let _ = stream.set_nodelay(true);
        Channel {
            stream,
            timeout: None,
            decoder: FrameDecoder::new(MAX_FRAME_BYTES),
            pending: received,
        }
    }

    /// The underlying socket.
    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }

    /// Sets how long one whole message may take to arrive, or to be sent
    /// (`None`: forever).
    pub fn set_timeout(&mut self, timeout: Option<Duration>) {
        self.timeout = timeout;
    }

    /// Sends one message, all of it within the timeout.
    pub fn send(&mut self, message: &Message) -> Result<()> {
        let frame = frame::encode_frame(&message::encode(message))
            .map_err(|e| EngineError::socket("writing to the control channel", e))?;
        self.send_bytes(&frame)
    }

    /// Writes raw bytes (whole frames) within the timeout.
    pub fn send_bytes(&mut self, bytes: &[u8]) -> Result<()> {
        let deadline = deadline_after(self.timeout);
        let mut written = 0;
        while written < bytes.len() {
            let left = time_left(deadline).map_err(|()| {
                EngineError::socket(
                    "writing to the control channel",
                    std::io::Error::new(std::io::ErrorKind::TimedOut, "the peer does not read"),
                )
            })?;
            let _ = self.stream.set_write_timeout(left);
            match self.stream.write(&bytes[written..]) {
                Ok(0) => {
                    return Err(EngineError::socket(
                        "writing to the control channel",
                        std::io::ErrorKind::WriteZero.into(),
                    ))
                }
                Ok(n) => written += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted || is_timeout(&e) => {}
                Err(e) => return Err(EngineError::socket("writing to the control channel", e)),
            }
        }
        Ok(())
    }

    /// Receives one raw frame body; the whole frame must arrive within the timeout.
    pub fn receive_frame(&mut self) -> Result<Vec<u8>, FrameError> {
        let result = self.receive_frame_inner();
        if result.is_err() {
            self.decoder = FrameDecoder::new(MAX_FRAME_BYTES);
        }
        result
    }

    fn receive_frame_inner(&mut self) -> Result<Vec<u8>, FrameError> {
        let deadline = deadline_after(self.timeout);
        let mut buffer = [0u8; 16 * 1024];
        loop {
            if !self.pending.is_empty() {
                let (used, frame) = self.decoder.push(&self.pending);
                self.pending.drain(..used);
                match frame {
                    Some(frame) => return frame,
                    None => continue,
                }
            }
            let left = time_left(deadline).map_err(|()| FrameError::TimedOut)?;
            let _ = self.stream.set_read_timeout(left);
            let wanted = self.decoder.wanted().clamp(1, buffer.len());
            match self.stream.read(&mut buffer[..wanted]) {
                Ok(0) => return Err(self.decoder.end_of_stream()),
                Ok(n) => {
                    if let (_, Some(frame)) = self.decoder.push(&buffer[..n]) {
                        return frame;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted || is_timeout(&e) => {}
                Err(e) => return Err(FrameError::Io(e)),
            }
        }
    }

    /// Receives and decodes one message. An [`Message::Error`] from the peer
    /// becomes [`EngineError::Refused`].
    pub fn receive(&mut self) -> Result<Message> {
        let body = self
            .receive_frame()
            .map_err(|e| EngineError::Protocol(error_chain(&e)))?;
        match message::decode(&body).map_err(EngineError::Protocol)? {
            Message::Error { message } => Err(EngineError::Refused(message)),
            other => Ok(other),
        }
    }

    /// Receives a message and fails unless `accept` maps it to a value.
    pub fn expect<T>(
        &mut self,
        what: &str,
        accept: impl FnOnce(Message) -> Option<T>,
    ) -> Result<T> {
        let message = self.receive()?;
        let text = format!("{message:?}");
        accept(message).ok_or_else(|| {
            EngineError::Protocol(format!("expected {what}, got {}", truncate(&text, 80)))
        })
    }
}

/// A wait as people read it: "15 s" for whole seconds, else "2.5 s" or
/// "300 ms".
pub fn seconds_text(wait: std::time::Duration) -> String {
    if wait.subsec_millis() == 0 && wait.as_secs() > 0 {
        format!("{} s", wait.as_secs())
    } else if wait.as_secs() > 0 {
        format!("{:.1} s", wait.as_secs_f64())
    } else {
        format!("{} ms", wait.as_millis())
    }
}

/// The client half of the handshake, driving [`ClientHandshake`] over a
/// blocking channel: hello, then the challenge if the server asks for one.
/// The channel's timeout bounds the whole handshake.
///
/// # Errors
/// [`EngineError::Refused`] when the server refuses (busy, version, key, or
/// a key it asks for and the client lacks); [`EngineError::Protocol`] for
/// anything that is not the protocol.
pub fn client_handshake(channel: &mut Channel, auth_key: Option<&[u8]>) -> Result<ServerWelcome> {
    let mut machine = ClientHandshake::new(auth_key);
    let whole = channel.timeout;
    let deadline = deadline_after(whole);
    let mut actions: std::collections::VecDeque<ClientAction> = machine.start().into();
    let mut buffer = [0u8; 4096];
    let mut heard = false;
    let outcome = loop {
        match actions.pop_front() {
            Some(ClientAction::Send(bytes)) => {
                if let Err(error) = channel.send_bytes(&bytes) {
                    break Err(error);
                }
            }
            Some(ClientAction::Established(welcome)) => break Ok(welcome),
            Some(ClientAction::Failed(error)) => break Err(error),
            None => {
                let Ok(left) = time_left(deadline) else {
                    if !heard {
                        // Not a word since the connection was accepted: not a
                        // dualperf server, or one too stuck to greet.
                        break Err(EngineError::Protocol(format!(
                            "the server accepted the connection but sent nothing in {}: is \
                             it `dualperf serve` (an iperf3 server needs --peer iperf3, a \
                             STAMP reflector --peer stamp)?",
                            seconds_text(whole.unwrap_or_default())
                        )));
                    }
                    break Err(EngineError::Protocol(error_chain(&FrameError::TimedOut)));
                };
                let wanted = machine.wanted().clamp(1, buffer.len());
                let _ = channel.stream.set_read_timeout(left);
                match channel.stream.read(&mut buffer[..wanted]) {
                    Ok(0) => actions.extend(machine.handle_eof()),
                    Ok(n) => {
                        heard = true;
                        actions.extend(machine.handle_bytes(&buffer[..n]));
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted || is_timeout(&e) => {}
                    Err(e) => break Err(EngineError::Protocol(error_chain(&FrameError::Io(e)))),
                }
                if actions.is_empty() && machine.wanted() == 0 {
                    break Err(EngineError::Protocol("handshake stalled".into()));
                }
            }
        }
    };
    channel.timeout = whole;
    outcome
}

/// Formats an error with its sources, `a: b: c`.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn truncate(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((index, _)) => &text[..index],
        None => text,
    }
}
