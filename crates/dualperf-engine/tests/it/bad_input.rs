//! Hostile and broken peers on the control port: the server answers or
//! closes cleanly, logs why, and keeps serving (a normal trial succeeds after).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use dualperf_engine::client::{run_trial, ClientOptions};
use dualperf_engine::limits::ServerLimits;
use dualperf_engine::protocol::{frame, message, Message, TestRequest, MAGIC, PROTOCOL_VERSION};
use dualperf_engine::EngineError;
use dualperf_model::{IpFamily, TestKind};

use crate::support::{assert_consistent, short_spec, trial, trial_error, TestServer};

fn connect(address: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
}

/// Reads whatever the server answers until it closes: the decoded error
/// text of an error frame, or `None` if it just closed.
fn answer(stream: &mut TcpStream) -> Option<String> {
    match frame::read_frame(stream) {
        Ok(body) => match message::decode(&body) {
            Ok(Message::Error { message }) => Some(message),
            other => panic!("expected an error frame, got {other:?}"),
        },
        Err(_) => None,
    }
}

fn send(stream: &mut TcpStream, message: &Message) {
    frame::write_frame(stream, &message::encode(message)).unwrap();
}

fn hello(stream: &mut TcpStream) {
    send(
        stream,
        &Message::Hello {
            magic: MAGIC.into(),
            version: PROTOCOL_VERSION,
        },
    );
    let body = frame::read_frame(stream).unwrap();
    assert!(matches!(
        message::decode(&body).unwrap(),
        Message::Welcome { .. }
    ));
}

fn still_serves(server: &TestServer) {
    let spec = short_spec(TestKind::TcpRr, 64);
    let report = trial(server.address("127.0.0.1"), &spec);
    assert_consistent(&report, &spec, IpFamily::V4);
}

fn wait_for_log(server: &TestServer, needle: &str) -> String {
    for _ in 0..100 {
        let log = server.log_text();
        if log.contains(needle) {
            return log;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("log never mentioned `{needle}`:\n{}", server.log_text());
}

#[test]
fn garbage_bytes_are_refused_and_the_server_keeps_serving() {
    let server = TestServer::start(ServerLimits::default(), None);
    let mut stream = connect(server.address("127.0.0.1"));
    stream.write_all(&[0, 0, 0, 12]).unwrap();
    stream.write_all(b"\xff\xfenot json!!").unwrap();
    let refusal = answer(&mut stream).expect("an error frame");
    assert!(refusal.contains("not JSON"), "{refusal}");
    wait_for_log(&server, "not JSON");
    still_serves(&server);
}

#[test]
fn a_truncated_frame_ends_the_session_with_a_logged_reason() {
    let server = TestServer::start(ServerLimits::default(), None);
    let mut stream = connect(server.address("::1"));
    stream.write_all(&[0, 0, 0, 100, b'{']).unwrap();
    stream.shutdown(std::net::Shutdown::Write).unwrap();
    let _ = answer(&mut stream);
    wait_for_log(&server, "truncated frame");
    still_serves(&server);
}

#[test]
fn an_oversized_length_is_refused_without_reading_it() {
    let server = TestServer::start(ServerLimits::default(), None);
    let mut stream = connect(server.address("127.0.0.1"));
    stream.write_all(&[0x7f, 0xff, 0xff, 0xff]).unwrap();
    let refusal = answer(&mut stream).expect("an error frame");
    assert!(refusal.contains("oversized"), "{refusal}");
    still_serves(&server);
}

#[test]
fn an_unknown_protocol_version_gets_a_refusal_naming_both_versions() {
    let server = TestServer::start(ServerLimits::default(), None);
    let mut stream = connect(server.address("127.0.0.1"));
    let body = br#"{"type":"hello","magic":"dualperf-control","version":7,"future_field":[1,2]}"#;
    frame::write_frame(&mut stream, body).unwrap();
    let refusal = answer(&mut stream).expect("an error frame");
    assert!(
        refusal.contains("version 7") && refusal.contains("version 1"),
        "{refusal}"
    );
    still_serves(&server);
}

#[test]
fn an_unexpected_message_after_the_handshake_ends_the_session() {
    let server = TestServer::start(ServerLimits::default(), None);
    let mut stream = connect(server.address("127.0.0.1"));
    hello(&mut stream);
    send(&mut stream, &Message::Started);
    let refusal = answer(&mut stream).expect("an error frame");
    assert!(
        refusal.contains("unexpected message `started`"),
        "{refusal}"
    );
    still_serves(&server);
}

#[test]
fn a_client_killed_mid_test_does_not_stop_the_server() {
    let server = TestServer::start(ServerLimits::default(), None);
    for kind in [TestKind::TcpStream, TestKind::UdpStream] {
        let mut spec = short_spec(kind, 1024);
        spec.duration_ms = 2_000;
        spec.reverse = true; // the server sends: it must stop sending when the client vanishes
        let mut control = connect(server.address("127.0.0.1"));
        hello(&mut control);
        let request = TestRequest {
            spec,
            family: IpFamily::V4,
            server_cpus: vec![],
            want_host_facts: false,
            marking: Default::default(),
        };
        send(&mut control, &Message::Request(request));
        let ready = match message::decode(&frame::read_frame(&mut control).unwrap()).unwrap() {
            Message::Ready(ready) => ready,
            other => panic!("{other:?}"),
        };
        let data_address = SocketAddr::new("127.0.0.1".parse().unwrap(), ready.data_ports[0]);
        let tcp = (kind == TestKind::TcpStream).then(|| TcpStream::connect(data_address).unwrap());
        let udp = (kind == TestKind::UdpStream).then(|| {
            let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
            socket.connect(data_address).unwrap();
            socket
                .send(&dualperf_engine::datagram::hello(ready.token, 0))
                .unwrap();
            socket
        });
        send(&mut control, &Message::Start);
        let started = frame::read_frame(&mut control).unwrap();
        assert_eq!(message::decode(&started).unwrap(), Message::Started);
        let mut sink = [0u8; 2048];
        if let Some(mut tcp) = tcp {
            tcp.read_exact(&mut sink).unwrap();
        }
        if let Some(udp) = udp {
            udp.recv(&mut sink).unwrap();
        }
        drop(control); // killed: control and data sockets vanish mid-stream
    }
    wait_for_log(&server, "ended after 0 tests");
    still_serves(&server);
}

#[test]
fn sessions_beyond_the_limit_are_refused_as_busy_and_later_ones_are_served() {
    let server = TestServer::start(
        ServerLimits {
            max_sessions: 1,
            ..Default::default()
        },
        None,
    );
    let mut first = connect(server.address("127.0.0.1"));
    hello(&mut first);
    let options = ClientOptions::default();
    let spec = short_spec(TestKind::TcpRr, 64);
    let error = trial_error(server.address("127.0.0.1"), &spec, &options);
    assert!(
        matches!(&error, EngineError::Refused(text) if text.contains("busy")),
        "{error:?}"
    );
    send(&mut first, &Message::Bye);
    drop(first);
    wait_for_log(&server, "closed by peer");
    std::thread::sleep(Duration::from_millis(100));
    still_serves(&server);
}

#[test]
fn requests_beyond_the_limits_are_refused_with_the_limit_named() {
    let server = TestServer::start(
        ServerLimits {
            max_duration: Duration::from_secs(1),
            ..Default::default()
        },
        None,
    );
    let mut spec = short_spec(TestKind::TcpStream, 1024);
    spec.duration_ms = 5_000;
    let error = trial_error(server.address("::1"), &spec, &ClientOptions::default());
    assert!(error.to_string().contains("--max-duration"), "{error}");
    still_serves(&server);
}

#[test]
fn datagrams_above_the_family_limit_are_rejected_before_sending() {
    let server = TestServer::start(ServerLimits::default(), None);
    let spec = short_spec(TestKind::UdpStream, 65_508);
    let error = trial_error(
        server.address("127.0.0.1"),
        &spec,
        &ClientOptions::default(),
    );
    assert!(error.to_string().contains("65507"), "{error}");
    // The same size is legal for IPv6 (65527) and is sent fragmented.
    let report = trial(server.address("::1"), &spec);
    assert_consistent(&report, &spec, IpFamily::V6);
}

#[test]
fn a_shared_key_is_required_and_checked() {
    let server = TestServer::start(ServerLimits::default(), Some(b"s3cret"));
    let spec = short_spec(TestKind::TcpRr, 64);
    let address = server.address("127.0.0.1");
    let no_key = trial_error(address, &spec, &ClientOptions::default());
    assert!(no_key.to_string().contains("--auth-key"), "{no_key}");
    let wrong = ClientOptions {
        auth_key: Some(b"guess".to_vec()),
        ..Default::default()
    };
    let refused = trial_error(address, &spec, &wrong);
    assert!(
        refused.to_string().contains("authentication failed"),
        "{refused}"
    );
    let right = ClientOptions {
        auth_key: Some(b"s3cret".to_vec()),
        ..Default::default()
    };
    let report = run_trial(address, &spec, IpFamily::V4, &right, false).unwrap();
    assert_consistent(&report, &spec, IpFamily::V4);
}

#[test]
fn pinning_to_a_cpu_that_does_not_exist_fails_the_trial_with_the_reason() {
    let server = TestServer::start(ServerLimits::default(), None);
    let spec = short_spec(TestKind::TcpRr, 64);
    for options in [
        ClientOptions {
            client_cpus: vec![1000],
            ..Default::default()
        },
        ClientOptions {
            server_cpus: vec![1000],
            ..Default::default()
        },
    ] {
        let error = trial_error(server.address("127.0.0.1"), &spec, &options);
        assert!(
            matches!(&error, EngineError::Flow(text) if text.contains("pinning")),
            "{error}"
        );
    }
    still_serves(&server);
}

#[test]
fn a_request_for_the_other_family_is_refused() {
    let server = TestServer::start(ServerLimits::default(), None);
    let mut stream = connect(server.address("127.0.0.1"));
    hello(&mut stream);
    let spec = short_spec(TestKind::TcpRr, 64);
    let request = TestRequest {
        spec,
        family: IpFamily::V6,
        server_cpus: vec![],
        want_host_facts: false,
        marking: Default::default(),
    };
    send(&mut stream, &Message::Request(request));
    let refusal = answer(&mut stream).expect("an error frame");
    assert!(
        refusal.contains("asked for IPv6 but reached this server over IPv4"),
        "{refusal}"
    );
    still_serves(&server);
}

#[test]
fn a_server_bound_to_one_address_serves_only_that_family() {
    let server = TestServer::start_on(Some("::1".parse().unwrap()), ServerLimits::default(), None);
    let spec = short_spec(TestKind::TcpRr, 64);
    let report = trial(server.address("::1"), &spec);
    assert_consistent(&report, &spec, IpFamily::V6);
    let error = trial_error(
        server.address("127.0.0.1"),
        &spec,
        &ClientOptions::default(),
    );
    assert!(
        error.to_string().contains("connecting the control channel"),
        "{error}"
    );
}
