//! The control channel: one TCP connection per session carrying
//! length-prefixed JSON messages ([`frame`], [`message`]), opened with a
//! versioned handshake and an optional HMAC challenge ([`auth`]).
//!
//! [`Channel`] wraps the socket; [`client_handshake`] and
//! [`server_handshake`] are the two halves of the opening exchange.

pub mod auth;
pub mod frame;
pub mod message;

use std::net::TcpStream;
use std::time::Duration;

pub use frame::{FrameError, MAX_FRAME_BYTES};
pub use message::{
    check_hello, HelloCheck, Message, Ready, ServerReport, StopReport, TestRequest, MAGIC,
    PROTOCOL_VERSION,
};

use crate::error::{EngineError, Result};

/// A control connection: sends and receives whole [`Message`]s.
#[derive(Debug)]
pub struct Channel {
    stream: TcpStream,
}

impl Channel {
    /// Wraps a connected control socket (Nagle off: messages are small and
    /// latency matters).
    pub fn new(stream: TcpStream) -> Self {
        let _ = stream.set_nodelay(true);
        Channel { stream }
    }

    /// The underlying socket.
    pub fn stream(&self) -> &TcpStream {
        &self.stream
    }

    /// Sets how long a receive may wait (`None`: forever).
    pub fn set_timeout(&self, timeout: Option<Duration>) {
        let _ = self.stream.set_read_timeout(timeout);
    }

    /// Sends one message.
    pub fn send(&mut self, message: &Message) -> Result<()> {
        frame::write_frame(&mut self.stream, &message::encode(message))
            .map_err(|e| EngineError::socket("writing to the control channel", e))
    }

    /// Receives one raw frame body.
    pub fn receive_frame(&mut self) -> Result<Vec<u8>, FrameError> {
        frame::read_frame(&mut self.stream)
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

/// What the server learnt in the handshake.
#[derive(Clone, Debug)]
pub struct ServerWelcome {
    /// The server kernel's boot id.
    pub boot_id: String,
}

/// The client half of the handshake: hello, then the challenge if the
/// server asks for one.
///
/// # Errors
/// [`EngineError::Refused`] when the server refuses (busy, version, key);
/// [`EngineError::Protocol`] when it asks for a key the client does not have.
pub fn client_handshake(channel: &mut Channel, auth_key: Option<&[u8]>) -> Result<ServerWelcome> {
    channel.send(&Message::Hello {
        magic: MAGIC.into(),
        version: PROTOCOL_VERSION,
    })?;
    let (challenge, boot_id) = channel.expect("welcome", |m| match m {
        Message::Welcome {
            challenge, boot_id, ..
        } => Some((challenge, boot_id)),
        _ => None,
    })?;
    if let Some(challenge) = challenge {
        let key = auth_key.ok_or_else(|| {
            EngineError::Refused("the server requires a shared key; pass --auth-key".into())
        })?;
        channel.send(&Message::Authenticate {
            response: auth::respond(key, &challenge),
        })?;
        channel.expect("authenticated", |m| {
            matches!(m, Message::Authenticated).then_some(())
        })?;
    }
    Ok(ServerWelcome { boot_id })
}

/// The server half of the handshake. On refusal it sends an
/// [`Message::Error`] first, then returns the reason.
pub fn server_handshake(
    channel: &mut Channel,
    auth_key: Option<&[u8]>,
    boot_id: &str,
) -> Result<()> {
    let body = channel
        .receive_frame()
        .map_err(|e| EngineError::Protocol(error_chain(&e)))?;
    if let HelloCheck::Refused(reason) = check_hello(&body) {
        let _ = channel.send(&Message::Error {
            message: reason.clone(),
        });
        return Err(EngineError::Protocol(reason));
    }
    let challenge = auth_key.map(|_| auth::new_challenge());
    channel.send(&Message::Welcome {
        version: PROTOCOL_VERSION,
        challenge: challenge.clone(),
        boot_id: boot_id.to_string(),
    })?;
    if let (Some(key), Some(challenge)) = (auth_key, challenge) {
        let response = channel.expect("authenticate", |m| match m {
            Message::Authenticate { response } => Some(response),
            _ => None,
        })?;
        if !auth::verify(key, &challenge, &response) {
            let _ = channel.send(&Message::Error {
                message: "authentication failed: wrong key".into(),
            });
            return Err(EngineError::Refused(
                "authentication failed: wrong key".into(),
            ));
        }
        channel.send(&Message::Authenticated)?;
    }
    Ok(())
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
