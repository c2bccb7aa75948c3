//! iperf3's control channel, as the client sees it (esnet/iperf
//! `iperf_client_api.c`, `iperf_api.c`).
//!
//! ```text
//! client                                    iperf3 server (port 5201)
//!   TCP connect, 37-byte cookie      ──>
//!                                    <──    PARAM_EXCHANGE (9)     (or ACCESS_DENIED (-1): busy)
//!   u32 length + JSON parameters     ──>
//!                                    <──    CREATE_STREAMS (10)
//!   data connections, each: cookie   ──>    (UDP: a 4-byte hello, answered)
//!                                    <──    TEST_START (1), TEST_RUNNING (2)
//!            … data for the test's duration …
//!   TEST_END (4)                     ──>
//!                                    <──    EXCHANGE_RESULTS (13)
//!   u32 length + JSON results        ──>
//!                                    <──    u32 length + JSON results
//!                                    <──    DISPLAY_RESULTS (14)
//!   IPERF_DONE (16), close           ──>
//! ```
//!
//! A state is one signed byte. `SERVER_ERROR` (-2) is followed by two
//! big-endian i32: iperf3's error number and the server's `errno`. JSON is
//! prefixed by its length as a big-endian u32. A server busy with another
//! client answers a new control connection with `ACCESS_DENIED` and closes it.

use std::hash::{BuildHasher, Hasher};
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use crate::error::{EngineError, IoContext, Result};

/// Length of the session cookie: 36 characters and a NUL (iperf3's `COOKIE_SIZE`).
pub const COOKIE_SIZE: usize = 37;

/// The characters iperf3's `make_cookie` draws from (base32's alphabet).
const COOKIE_ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// Largest JSON document accepted from a server, bytes. iperf3 itself caps
/// parameters at 8 KiB; results carry one object per stream (at most 128)
/// and optionally the server's output, so a generous bound still stops a
/// hostile length prefix from allocating gigabytes.
pub const MAX_JSON_BYTES: u32 = 4 * 1024 * 1024;

/// One state of iperf3's test state machine (`iperf_api.h`), as the byte on
/// the control channel.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum State {
    /// 1: the server has created its streams and starts the test.
    TestStart,
    /// 2: data may flow.
    TestRunning,
    /// 4: the client ends the test.
    TestEnd,
    /// 9: the server asks for the test parameters.
    ParamExchange,
    /// 10: the server listens for the data connections.
    CreateStreams,
    /// 11: the server was terminated (e.g. by a signal).
    ServerTerminate,
    /// 12: the client was terminated.
    ClientTerminate,
    /// 13: both ends exchange their results.
    ExchangeResults,
    /// 14: the server has sent its results.
    DisplayResults,
    /// 15: not used on the wire.
    IperfStart,
    /// 16: the client is done.
    IperfDone,
    /// -1: the server is busy with another client (one test at a time).
    AccessDenied,
    /// -2: the server failed; two i32 error numbers follow.
    ServerError,
}

impl State {
    /// The state a byte on the wire stands for; `None` for an unknown byte.
    pub fn from_byte(byte: u8) -> Option<State> {
        Some(match byte as i8 {
            1 => State::TestStart,
            2 => State::TestRunning,
            4 => State::TestEnd,
            9 => State::ParamExchange,
            10 => State::CreateStreams,
            11 => State::ServerTerminate,
            12 => State::ClientTerminate,
            13 => State::ExchangeResults,
            14 => State::DisplayResults,
            15 => State::IperfStart,
            16 => State::IperfDone,
            -1 => State::AccessDenied,
            -2 => State::ServerError,
            _ => return None,
        })
    }

    /// The byte this state is sent as.
    pub fn byte(self) -> u8 {
        let value: i8 = match self {
            State::TestStart => 1,
            State::TestRunning => 2,
            State::TestEnd => 4,
            State::ParamExchange => 9,
            State::CreateStreams => 10,
            State::ServerTerminate => 11,
            State::ClientTerminate => 12,
            State::ExchangeResults => 13,
            State::DisplayResults => 14,
            State::IperfStart => 15,
            State::IperfDone => 16,
            State::AccessDenied => -1,
            State::ServerError => -2,
        };
        value as u8
    }
}

/// Why a control exchange with an iperf3 server did not go on.
#[derive(Debug)]
pub enum ControlError {
    /// The server is running another client's test (`ACCESS_DENIED`), or
    /// closed a fresh connection at once (the pattern of servers that
    /// accept one test at a time): try again later.
    Busy(String),
    /// The server closed the control connection where a state was due.
    Closed(String),
    /// Anything else; not worth retrying.
    Failed(EngineError),
}

impl ControlError {
    /// The error once the test has begun, when "busy" no longer applies.
    pub fn into_engine_error(self) -> EngineError {
        match self {
            ControlError::Busy(text) => EngineError::Refused(text),
            ControlError::Closed(text) => EngineError::Protocol(text),
            ControlError::Failed(error) => error,
        }
    }
}

impl From<EngineError> for ControlError {
    fn from(error: EngineError) -> Self {
        ControlError::Failed(error)
    }
}

/// A new session cookie: 36 characters of iperf3's alphabet and a NUL.
/// Not a secret (iperf3 uses `rand()`): it ties data connections to a session.
pub fn new_cookie() -> [u8; COOKIE_SIZE] {
    let mut cookie = [0u8; COOKIE_SIZE];
    let mut bits: u64 = 0;
    let mut left = 0;
    for slot in cookie.iter_mut().take(COOKIE_SIZE - 1) {
        if left < 5 {
            let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
            hasher.write_i64(crate::clock::realtime_ns());
            hasher.write_u32(std::process::id());
            bits = hasher.finish();
            left = 64;
        }
        *slot = COOKIE_ALPHABET[(bits & 31) as usize];
        bits >>= 5;
        left -= 5;
    }
    cookie
}

/// Writes `value` as iperf3 frames JSON: a big-endian u32 length, then the text.
///
/// # Errors
/// The socket's write error.
pub fn write_json(writer: &mut impl Write, value: &serde_json::Value) -> io::Result<()> {
    let text = value.to_string();
    let length = u32::try_from(text.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "JSON above 4 GiB"))?;
    let mut frame = Vec::with_capacity(4 + text.len());
    frame.extend_from_slice(&length.to_be_bytes());
    frame.extend_from_slice(text.as_bytes());
    writer.write_all(&frame)
}

/// Reads one length-prefixed JSON document of at most [`MAX_JSON_BYTES`].
///
/// # Errors
/// A read error, a length of 0 or above the bound, or text that is not JSON.
pub fn read_json(reader: &mut impl Read) -> Result<serde_json::Value> {
    let mut length = [0u8; 4];
    reader
        .read_exact(&mut length)
        .context(|| "reading the length of the iperf3 server's JSON".into())?;
    let length = u32::from_be_bytes(length);
    if length == 0 || length > MAX_JSON_BYTES {
        return Err(EngineError::Protocol(format!(
            "the iperf3 server announced {length} bytes of JSON (1 to {MAX_JSON_BYTES} accepted)"
        )));
    }
    let mut text = vec![0u8; length as usize];
    reader
        .read_exact(&mut text)
        .context(|| format!("reading {length} bytes of JSON from the iperf3 server"))?;
    serde_json::from_slice(&text)
        .map_err(|e| EngineError::Protocol(format!("the iperf3 server sent invalid JSON: {e}")))
}

/// The client's end of one iperf3 control connection.
#[derive(Debug)]
pub struct Control {
    stream: TcpStream,
    server: SocketAddr,
    cookie: [u8; COOKIE_SIZE],
}

/// A connection reset or aborted by the peer.
fn is_reset(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionReset | io::ErrorKind::ConnectionAborted
    )
}

impl Control {
    /// Connects to the iperf3 server at `server` and sends a new cookie,
    /// waiting at most `timeout` for the connection and for every answer.
    ///
    /// # Errors
    /// [`ControlError::Busy`] when the connection is refused (a server
    /// between tests restarts its listener; public servers are often
    /// briefly down between clients); [`ControlError::Failed`] otherwise.
    pub fn connect(server: SocketAddr, timeout: Duration) -> Result<Control, ControlError> {
        let stream = match TcpStream::connect_timeout(&server, timeout) {
            Ok(stream) => stream,
            Err(error) if error.kind() == io::ErrorKind::ConnectionRefused => {
                return Err(ControlError::Busy(format!(
                    "{server} refused the connection (no iperf3 server listening there, or one restarting between clients)"
                )))
            }
            // A server that has just ended a test closes and reopens its
            // listener: a connection that reaches the closing one is reset
            // (seen between two back-to-back trials against iperf3 3.12).
            Err(error) if is_reset(&error) => {
                return Err(ControlError::Busy(format!(
                    "{server} reset the connection (an iperf3 server restarting its listener between tests)"
                )))
            }
            Err(error) => {
                return Err(EngineError::socket(
                    format!("connecting to the iperf3 server at {server}"),
                    error,
                )
                .into())
            }
        };
        let what = || format!("setting up the control connection to {server}");
        stream.set_nodelay(true).context(what)?;
        stream.set_read_timeout(Some(timeout)).context(what)?;
        stream.set_write_timeout(Some(timeout)).context(what)?;
        let cookie = new_cookie();
        let mut control = Control {
            stream,
            server,
            cookie,
        };
        match control.stream.write_all(&cookie) {
            Err(error) if is_reset(&error) => Err(ControlError::Busy(format!(
                "{server} reset the connection before the test (an iperf3 server restarting its listener between tests)"
            ))),
            other => {
                other.context(|| format!("sending the cookie to the iperf3 server at {server}"))?;
                Ok(control)
            }
        }
    }

    /// The session cookie, sent again on every TCP data connection.
    pub fn cookie(&self) -> &[u8; COOKIE_SIZE] {
        &self.cookie
    }

    /// The server's control address.
    pub fn server(&self) -> SocketAddr {
        self.server
    }

    /// The control socket, for `TCP_INFO` and addresses.
    pub fn socket(&self) -> &TcpStream {
        &self.stream
    }

    /// Changes how long a read may wait (the test itself may run longer
    /// than the handshake timeout).
    ///
    /// # Errors
    /// The socket option's error.
    pub fn set_read_timeout(&self, timeout: Duration) -> Result<()> {
        self.stream
            .set_read_timeout(Some(timeout))
            .context(|| "setting the control channel's read timeout".into())
    }

    /// Reads the next state. `ACCESS_DENIED`, `SERVER_ERROR` and
    /// `SERVER_TERMINATE` become errors saying so; a connection closed
    /// before the first state reads as busy (a server that closes the
    /// connections it cannot serve).
    ///
    /// # Errors
    /// As above, and read errors.
    pub fn read_state(&mut self) -> Result<State, ControlError> {
        let mut byte = [0u8; 1];
        match self.stream.read(&mut byte) {
            Ok(0) => {
                return Err(ControlError::Closed(format!(
                    "the iperf3 server at {} closed the control connection",
                    self.server
                )))
            }
            Ok(_) => {}
            Err(error) => {
                return Err(EngineError::socket(
                    format!("reading a state from the iperf3 server at {}", self.server),
                    error,
                )
                .into())
            }
        }
        match State::from_byte(byte[0]) {
            Some(State::AccessDenied) => Err(ControlError::Busy(format!(
                "the iperf3 server at {} is busy running another test (ACCESS_DENIED)",
                self.server
            ))),
            Some(State::ServerError) => {
                let mut numbers = [0u8; 8];
                let detail = match self.stream.read_exact(&mut numbers) {
                    Ok(()) => {
                        let (code, errno) = numbers.split_at(4);
                        let code = i32::from_be_bytes([code[0], code[1], code[2], code[3]]);
                        let errno = i32::from_be_bytes([errno[0], errno[1], errno[2], errno[3]]);
                        describe_server_error(code, errno)
                    }
                    Err(_) => "no error number followed".to_string(),
                };
                Err(ControlError::Failed(EngineError::Refused(format!(
                    "the iperf3 server at {} reported an error: {detail}",
                    self.server
                ))))
            }
            Some(State::ServerTerminate) => Err(ControlError::Failed(EngineError::Refused(
                format!("the iperf3 server at {} terminated the test", self.server),
            ))),
            Some(state) => Ok(state),
            None => Err(ControlError::Failed(EngineError::Protocol(format!(
                "the iperf3 server at {} sent an unknown state byte {}",
                self.server, byte[0] as i8
            )))),
        }
    }

    /// [`Control::expect`] for the first state of a session, where a
    /// connection the server closes at once (some servers drop the clients
    /// they cannot serve instead of answering ACCESS_DENIED) reads as busy.
    ///
    /// # Errors
    /// As [`Control::expect`].
    pub fn expect_first(&mut self, want: State) -> Result<(), ControlError> {
        match self.expect(want) {
            Err(ControlError::Closed(_)) => {
                Err(ControlError::Busy(format!(
                    "the iperf3 server at {} closed the connection before the test (a busy server's answer)",
                    self.server
                )))
            }
            other => other,
        }
    }

    /// Reads the next state and fails unless it is `want`.
    ///
    /// # Errors
    /// As [`Control::read_state`], and any other state.
    pub fn expect(&mut self, want: State) -> Result<(), ControlError> {
        let got = self.read_state()?;
        if got != want {
            return Err(ControlError::Failed(EngineError::Protocol(format!(
                "the iperf3 server at {} sent {got:?} where {want:?} was due",
                self.server
            ))));
        }
        Ok(())
    }

    /// Sends `state` to the server.
    ///
    /// # Errors
    /// The socket's write error.
    pub fn send_state(&mut self, state: State) -> Result<()> {
        let server = self.server;
        self.stream
            .write_all(&[state.byte()])
            .context(|| format!("sending {state:?} to the iperf3 server at {server}"))
    }

    /// Sends a JSON document (parameters or results).
    ///
    /// # Errors
    /// The socket's write error.
    pub fn send_json(&mut self, value: &serde_json::Value) -> Result<()> {
        let server = self.server;
        write_json(&mut self.stream, value)
            .context(|| format!("sending JSON to the iperf3 server at {server}"))
    }

    /// Reads a JSON document (the server's results).
    ///
    /// # Errors
    /// As [`read_json`].
    pub fn read_json(&mut self) -> Result<serde_json::Value> {
        read_json(&mut self.stream)
    }
}

/// Words for the iperf3 error numbers a client most often meets
/// (`iperf_api.h`, `enum`); others are given as numbers.
pub fn describe_server_error(code: i32, errno: i32) -> String {
    let text = match code {
        100 => "could not create a new test (IENEWTEST)",
        101 => "test initialisation failed (IEINITTEST)",
        102 => "the server could not listen for data connections (IELISTEN)",
        104 => "accepting a data connection failed (IEACCEPT)",
        106 => "could not receive the cookie (IERECVCOOKIE)",
        114 => "could not receive the parameters (IERECVPARAMS)",
        117 => "could not receive the client's results (IERECVRESULTS)",
        121 => "the server is busy running a test (IEACCESSDENIED)",
        124 => "could not set the socket buffer size (IESETBUF)",
        142 => "the test is not authorized (IEAUTHTEST)",
        _ => "",
    };
    let errno = match errno {
        0 => String::new(),
        n => format!(", errno {n} ({})", io::Error::from_raw_os_error(n)),
    };
    if text.is_empty() {
        format!("iperf3 error {code}{errno}")
    } else {
        format!("{text}, iperf3 error {code}{errno}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_round_trips_through_its_byte() {
        for byte in 0..=255u8 {
            if let Some(state) = State::from_byte(byte) {
                assert_eq!(state.byte(), byte);
            }
        }
        assert_eq!(State::from_byte(0xff), Some(State::AccessDenied));
        assert_eq!(State::from_byte(0xfe), Some(State::ServerError));
        assert_eq!(State::ParamExchange.byte(), 9);
        assert_eq!(State::IperfDone.byte(), 16);
        assert_eq!(State::from_byte(3), None, "RESULT_REQUEST is not used");
    }

    #[test]
    fn a_cookie_is_36_base32_characters_and_a_nul() {
        let cookie = new_cookie();
        assert_eq!(cookie[36], 0);
        assert!(cookie[..36].iter().all(|c| COOKIE_ALPHABET.contains(c)));
        assert_ne!(new_cookie(), cookie, "cookies differ");
    }

    #[test]
    fn json_is_framed_by_a_big_endian_length() {
        let mut wire = Vec::new();
        write_json(&mut wire, &serde_json::json!({"tcp": true})).unwrap();
        assert_eq!(&wire[..4], &[0, 0, 0, 12]);
        assert_eq!(&wire[4..], br#"{"tcp":true}"#);
        let back = read_json(&mut wire.as_slice()).unwrap();
        assert_eq!(back["tcp"], true);
    }

    #[test]
    fn hostile_lengths_and_text_are_errors_not_allocations() {
        let huge = [0xffu8, 0xff, 0xff, 0xff];
        let error = read_json(&mut huge.as_slice()).unwrap_err().to_string();
        assert!(error.contains("4294967295 bytes"), "{error}");
        let zero = [0u8; 4];
        assert!(read_json(&mut zero.as_slice()).is_err());
        let mut garbage = vec![0, 0, 0, 3];
        garbage.extend_from_slice(b"{x]");
        assert!(read_json(&mut garbage.as_slice()).is_err());
        let short = [0u8, 0, 0, 10, b'{'];
        assert!(read_json(&mut short.as_slice()).is_err());
    }

    #[test]
    fn server_errors_read_as_words_when_known() {
        assert!(describe_server_error(142, 0).contains("not authorized"));
        assert!(describe_server_error(999, 0).contains("iperf3 error 999"));
        assert!(describe_server_error(102, 98).contains("errno 98"));
    }
}
