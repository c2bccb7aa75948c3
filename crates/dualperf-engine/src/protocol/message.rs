//! The messages of the control channel, JSON-encoded one per frame, tagged
//! by `"type"`. The first frame of a session is always [`Message::Hello`],
//! whose magic and version are checked on raw JSON before anything else, so
//! a peer speaking another protocol version gets a clear refusal instead of
//! a parse error.

use serde::{Deserialize, Serialize};

use dualperf_model::{
    FlowCounters, HostFacts, IntervalSample, IpFamily, Marking, ProcessCpu, SocketFacts,
    TcpCounters, TestSpec, UdpReceiveCounters,
};

/// Identifies the dualperf control protocol in [`Message::Hello`].
pub const MAGIC: &str = "dualperf-control";

/// Version of the control protocol this build speaks. Bump on any change
/// that an older peer would misread.
pub const PROTOCOL_VERSION: u32 = 1;

/// One control message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Message {
    /// Client → server, first frame: who is speaking.
    Hello {
        /// Always [`MAGIC`].
        magic: String,
        /// The client's [`PROTOCOL_VERSION`].
        version: u32,
    },
    /// Server → client: accepted; a challenge if `--auth-key` is set.
    Welcome {
        /// The server's protocol version.
        version: u32,
        /// Hex nonce to answer with HMAC-SHA256 (see [`super::auth`]), if required.
        challenge: Option<String>,
        /// The server kernel's boot id: equal boot ids share one clock.
        boot_id: String,
    },
    /// Client → server: the answer to the challenge (hex HMAC).
    Authenticate {
        /// Hex HMAC-SHA256 over the challenge.
        response: String,
    },
    /// Server → client: the answer was right.
    Authenticated {
        /// The server kernel's boot id, told only to a client that proved
        /// the key (the welcome of a server with a key carries none). Older
        /// servers omit it.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        boot_id: String,
    },
    /// Client → server: the test to prepare.
    Request(TestRequest),
    /// Server → client: data sockets are bound.
    Ready(Ready),
    /// Client → server: data connections are open, UDP hellos sent; go.
    Start,
    /// Server → client: the server's flows and sampler run.
    Started,
    /// Client → server: the client's flows finished; what it sent.
    Stop(StopReport),
    /// Server → client: what the server measured.
    Results(Box<ServerReport>),
    /// Either way: the session ends because of this.
    Error {
        /// What went wrong, for people.
        message: String,
    },
    /// Client → server: the session ends normally.
    Bye,
}

/// What the client asks the server to prepare.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestRequest {
    /// The point to measure.
    pub spec: TestSpec,
    /// The family the client means to use (checked against the control peer).
    pub family: IpFamily,
    /// CPUs the server should pin its flow threads to (empty: unpinned).
    pub server_cpus: Vec<u32>,
    /// Whether the results should carry the server's host facts.
    pub want_host_facts: bool,
    /// How the server marks its data sockets (DSCP, IPv6 flow label): the
    /// arm's marking. Absent from older clients: unmarked.
    #[serde(default, skip_serializing_if = "Marking::is_empty")]
    pub marking: Marking,
}

/// The server's data sockets for one test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ready {
    /// Data ports: one TCP listener port (tcp kinds), or one UDP port per
    /// stream (udp kinds), on the address the control channel reached.
    pub data_ports: Vec<u16>,
    /// Token the client's UDP hellos must carry.
    pub token: u64,
    /// The family the server saw on the control channel.
    pub seen_family: IpFamily,
}

/// What the client reports when its flows have finished.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StopReport {
    /// What the client sent in its measured interval (client is the sender).
    pub sent: FlowCounters,
    /// Measured datagrams sent per UDP stream (client is the UDP sender).
    pub sent_per_stream: Vec<u64>,
}

/// Everything the server measured in one test.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerReport {
    /// The family of the control peer as the server saw it.
    pub seen_family: Option<IpFamily>,
    /// Length of the server's measured interval, nanoseconds.
    pub measured_ns: u64,
    /// What the server sent (reverse streams, rr echoes).
    pub sent: FlowCounters,
    /// What the server received.
    pub received: FlowCounters,
    /// Measured datagrams sent per UDP stream (server is the UDP sender).
    pub sent_per_stream: Vec<u64>,
    /// The server's interval samples.
    pub intervals: Vec<IntervalSample>,
    /// UDP receive counters (server is the UDP receiver).
    pub udp: Option<UdpReceiveCounters>,
    /// TCP_INFO of the server's sending sockets (server is the TCP sender).
    pub tcp: Option<TcpCounters>,
    /// The server process's CPU over its measured interval.
    pub cpu: ProcessCpu,
    /// The server's data socket settings.
    pub socket: SocketFacts,
    /// The server's host facts, when asked for.
    pub host: Option<HostFacts>,
    /// Notes on how the server measured.
    pub notes: Vec<String>,
    /// Why server flows failed; the client fails the trial with them.
    pub errors: Vec<String>,
    /// Datagrams the server's receiving sockets dropped (SO_RXQ_OVFL).
    pub receive_buffer_drops: Option<u64>,
    /// How the server's paced senders kept their schedule (reverse paced
    /// UDP); absent from older servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacer: Option<dualperf_model::PacerSchedule>,
    /// The server's own line for this test, as its log prints it ("test
    /// from [::1]:51736 (IPv6): received … B, sent … B in 0.30 s measured
    /// (…)"): iperf3's `--get-server-output`. Absent from older servers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

/// Outcome of checking a first frame that should be a hello.
#[derive(Debug, PartialEq, Eq)]
pub enum HelloCheck {
    /// Right magic and version.
    Accepted,
    /// Not a dualperf hello, or a version this build does not speak; the
    /// text is the refusal to send.
    Refused(String),
}

/// Checks the first frame of a session on raw JSON, so that any future
/// version of the hello is still recognised and refused with a clear message.
pub fn check_hello(body: &[u8]) -> HelloCheck {
    let value: serde_json::Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(_) => {
            return HelloCheck::Refused("first frame is not JSON; expected a dualperf hello".into())
        }
    };
    let magic = value.get("magic").and_then(|m| m.as_str());
    if value.get("type").and_then(|t| t.as_str()) != Some("hello") || magic != Some(MAGIC) {
        return HelloCheck::Refused(format!("first frame is not a `{MAGIC}` hello"));
    }
    match value.get("version").and_then(|v| v.as_u64()) {
        Some(version) if version == u64::from(PROTOCOL_VERSION) => HelloCheck::Accepted,
        Some(version) => HelloCheck::Refused(format!(
            "protocol version {version} is not supported; this server (dualperf {}) speaks version {PROTOCOL_VERSION}",
            env!("CARGO_PKG_VERSION")
        )),
        None => HelloCheck::Refused("hello carries no protocol version".into()),
    }
}

/// Encodes a message as a JSON frame body.
pub fn encode(message: &Message) -> Vec<u8> {
    serde_json::to_vec(message).expect("messages hold only JSON-representable values")
}

/// Decodes a frame body; the error text names what was wrong.
pub fn decode(body: &[u8]) -> Result<Message, String> {
    serde_json::from_slice(body).map_err(|e| format!("malformed message: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn hello_has_a_stable_wire_form() {
        let hello = Message::Hello {
            magic: MAGIC.into(),
            version: 1,
        };
        assert_eq!(
            String::from_utf8(encode(&hello)).unwrap(),
            r#"{"type":"hello","magic":"dualperf-control","version":1}"#
        );
        assert_eq!(check_hello(&encode(&hello)), HelloCheck::Accepted);
    }

    #[test]
    fn unit_messages_are_just_a_type_tag() {
        assert_eq!(encode(&Message::Start), br#"{"type":"start"}"#);
        assert_eq!(decode(br#"{"type":"bye"}"#).unwrap(), Message::Bye);
    }

    #[test]
    fn unknown_version_is_refused_with_both_versions_named() {
        let body = br#"{"type":"hello","magic":"dualperf-control","version":99,"extra":true}"#;
        match check_hello(body) {
            HelloCheck::Refused(text) => {
                assert!(
                    text.contains("version 99") && text.contains("version 1"),
                    "{text}"
                )
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn other_protocols_are_refused() {
        assert!(matches!(
            check_hello(b"GET / HTTP/1.1"),
            HelloCheck::Refused(_)
        ));
        assert!(matches!(
            check_hello(br#"{"type":"start"}"#),
            HelloCheck::Refused(_)
        ));
    }

    #[test]
    fn authenticated_reads_with_and_without_a_boot_id() {
        assert_eq!(
            decode(br#"{"type":"authenticated"}"#).unwrap(),
            Message::Authenticated {
                boot_id: String::new()
            }
        );
        let with = Message::Authenticated {
            boot_id: "b".into(),
        };
        assert_eq!(decode(&encode(&with)).unwrap(), with);
    }

    #[test]
    fn unknown_message_type_is_an_error_not_a_panic() {
        assert!(decode(br#"{"type":"launch_missiles"}"#)
            .unwrap_err()
            .contains("malformed"));
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic_the_decoders(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = decode(&bytes);
            let _ = check_hello(&bytes);
        }

        #[test]
        fn arbitrary_json_strings_never_panic_the_decoder(text in "\\{\"type\":\"[a-z_]{0,12}\"(,\"[a-z]{1,8}\":[0-9a-z\"]{0,6})?\\}") {
            let _ = decode(text.as_bytes());
        }
    }
}
