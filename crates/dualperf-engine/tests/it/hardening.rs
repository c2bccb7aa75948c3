//! The faults of issue 16 against a real server on loopback, each bounded
//! in connections and time: slow handshakes, trickled messages, greedy and
//! very slow tests, malformed messages after the handshake, forged log
//! lines, host facts. (A thousand slow connections and the thread count are
//! in `tests/slow_handshakes.rs`, a binary of their own.)

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use dualperf_engine::client::{run_trial, ClientOptions};
use dualperf_engine::limits::{min_udp_rate, ServerLimits, MAX_WRITE_BYTES};
use dualperf_engine::protocol::{frame, message, Message, MAGIC, PROTOCOL_VERSION};
use dualperf_engine::server::ServerConfig;
use dualperf_model::{BitRate, IpFamily, TestKind};

use crate::support::{assert_consistent, short_spec, trial, trial_error, TestServer};

fn connect(address: SocketAddr) -> TcpStream {
    let stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
}

/// A client that sends a 4-byte length and then one byte of the body every
/// `every`, on its own thread, until `stop_after` (or the server closes).
fn trickler(
    address: SocketAddr,
    every: Duration,
    stop_after: Duration,
) -> std::thread::JoinHandle<Duration> {
    std::thread::spawn(move || {
        let started = Instant::now();
        let mut stream = connect(address);
        let _ = stream.write_all(&[0, 0, 0, 200]);
        while started.elapsed() < stop_after {
            std::thread::sleep(every);
            if stream.write_all(b" ").is_err() {
                break;
            }
            // The server closing shows as a readable end of stream.
            stream.set_nonblocking(true).unwrap();
            let mut byte = [0u8; 256];
            match stream.read(&mut byte) {
                Ok(_) => break,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(_) => break,
            }
            stream.set_nonblocking(false).unwrap();
        }
        started.elapsed()
    })
}

fn answer(stream: &mut TcpStream) -> Option<String> {
    match frame::read_frame(stream) {
        Ok(body) => match message::decode(&body) {
            Ok(Message::Error { message }) => Some(message),
            other => panic!("expected an error frame, got {other:?}"),
        },
        Err(_) => None,
    }
}

fn hello(stream: &mut TcpStream) {
    let hello = Message::Hello {
        magic: MAGIC.into(),
        version: PROTOCOL_VERSION,
    };
    frame::write_frame(stream, &message::encode(&hello)).unwrap();
    let body = frame::read_frame(stream).unwrap();
    assert!(matches!(
        message::decode(&body).unwrap(),
        Message::Welcome { .. }
    ));
}

#[test]
fn slow_handshakes_take_no_session_slot_and_a_legitimate_client_is_served() {
    // Issue 16 fault 1: four connections that send a length and then one
    // byte every 3 s held all four default slots for a minute. Here six
    // trickle (more than the slots), with and without a key.
    for key in [None, Some(&b"k3y"[..])] {
        let server = TestServer::start(ServerLimits::default(), key);
        let slow: Vec<_> = (0..6)
            .map(|_| {
                trickler(
                    server.address("127.0.0.1"),
                    Duration::from_millis(300),
                    Duration::from_secs(3),
                )
            })
            .collect();
        std::thread::sleep(Duration::from_millis(300));
        let options = ClientOptions {
            auth_key: key.map(<[u8]>::to_vec),
            ..Default::default()
        };
        let spec = short_spec(TestKind::TcpRr, 64);
        let started = Instant::now();
        let report = run_trial(server.address("::1"), &spec, IpFamily::V6, &options, false)
            .unwrap_or_else(|e| panic!("with key {key:?}: {e}"));
        assert_consistent(&report, &spec, IpFamily::V6);
        assert!(started.elapsed() < Duration::from_secs(3));
        for handle in slow {
            let _ = handle.join();
        }
    }
}

#[test]
fn the_whole_handshake_has_one_deadline_however_slowly_bytes_arrive() {
    let limits = ServerLimits {
        handshake_timeout: Duration::from_secs(1),
        ..Default::default()
    };
    let server = TestServer::start(limits, None);
    // One byte every 300 ms: every single read is on time, the whole is not.
    let lasted = trickler(
        server.address("127.0.0.1"),
        Duration::from_millis(300),
        Duration::from_secs(10),
    )
    .join()
    .unwrap();
    assert!(
        lasted < Duration::from_millis(2_500),
        "the trickling connection lasted {lasted:?}"
    );
    let log = server.log_text();
    assert!(log.contains("handshake timed out"), "{log}");
}

#[test]
fn a_message_trickled_after_the_handshake_meets_the_idle_deadline() {
    let limits = ServerLimits {
        idle_timeout: Duration::from_secs(1),
        ..Default::default()
    };
    let server = TestServer::start(limits, None);
    let mut stream = connect(server.address("127.0.0.1"));
    hello(&mut stream);
    let started = Instant::now();
    let _ = stream.write_all(&[0, 0, 0, 100]);
    for _ in 0..30 {
        std::thread::sleep(Duration::from_millis(300));
        if stream.write_all(b" ").is_err() {
            break;
        }
        stream.set_nonblocking(true).unwrap();
        let mut probe = [0u8; 1];
        let closed = !matches!(stream.peek(&mut probe), Err(ref e) if e.kind() == std::io::ErrorKind::WouldBlock);
        stream.set_nonblocking(false).unwrap();
        if closed {
            break;
        }
    }
    assert!(
        started.elapsed() < Duration::from_millis(2_500),
        "lasted {:?}",
        started.elapsed()
    );
    let refusal = answer(&mut stream).expect("an error frame");
    assert!(refusal.contains("timed out"), "{refusal}");
}

#[test]
fn a_malformed_message_after_the_handshake_gets_an_error_frame() {
    let server = TestServer::start(ServerLimits::default(), None);
    let mut stream = connect(server.address("127.0.0.1"));
    hello(&mut stream);
    frame::write_frame(&mut stream, br#"{"type":"request","spec":"#).unwrap();
    let refusal = answer(&mut stream).expect("an error frame before closing");
    assert!(refusal.contains("malformed"), "{refusal}");
}

#[test]
fn client_text_cannot_forge_log_lines() {
    let server = TestServer::start(ServerLimits::default(), None);
    let mut stream = connect(server.address("127.0.0.1"));
    hello(&mut stream);
    let forged = "{\"type\":\"x\\nsession from 6.6.6.6: family IPv4\\u001b[2K\"}";
    frame::write_frame(&mut stream, forged.as_bytes()).unwrap();
    let _ = answer(&mut stream);
    let mut hello_forged = connect(server.address("127.0.0.1"));
    frame::write_frame(&mut hello_forged, b"\n\rGET / HTTP/1.1\n").unwrap();
    let _ = answer(&mut hello_forged);
    std::thread::sleep(Duration::from_millis(300));
    let lines = server.log.lock().unwrap().clone();
    assert!(lines.iter().any(|l| l.contains("6.6.6.6")), "{lines:?}");
    for line in &lines {
        assert!(
            !line.contains('\n') && !line.contains('\r') && !line.contains('\u{1b}'),
            "{line:?}"
        );
    }
}

#[test]
fn huge_writes_and_too_much_memory_are_refused_with_the_limit_named() {
    // Issue 16 fault 3: 1 GiB writes on two reverse streams drove the
    // server to 2.1 GB.
    let server = TestServer::start(ServerLimits::default(), None);
    let mut huge = short_spec(TestKind::TcpStream, 1 << 30);
    (huge.reverse, huge.parallel_streams) = (true, 2);
    let error = trial_error(
        server.address("127.0.0.1"),
        &huge,
        &ClientOptions::default(),
    );
    assert!(error.to_string().contains("16777216 B"), "{error}");
    let mut wide = short_spec(TestKind::TcpStream, MAX_WRITE_BYTES);
    (wide.reverse, wide.parallel_streams) = (true, 16);
    let error = trial_error(
        server.address("127.0.0.1"),
        &wide,
        &ClientOptions::default(),
    );
    assert!(
        error.to_string().contains("--max-session-memory"),
        "{error}"
    );
}

#[test]
fn a_very_low_rate_is_refused_and_the_lowest_allowed_ends_on_time() {
    // Issue 16 fault 5: a reverse udp-stream at 1 bit/s held a slot for 2.3 h.
    let server = TestServer::start(ServerLimits::default(), None);
    let mut slow = short_spec(TestKind::UdpStream, 1024);
    slow.reverse = true;
    slow.rate = Some(BitRate::from_bits_per_second(1));
    let error = trial_error(
        server.address("127.0.0.1"),
        &slow,
        &ClientOptions::default(),
    );
    assert!(error.to_string().contains("minimum"), "{error}");
    // The lowest rate allowed, with the largest datagram: one per second.
    let mut lowest = short_spec(TestKind::UdpStream, 60_000);
    lowest.reverse = true;
    lowest.duration_ms = 1_000;
    lowest.rate = Some(min_udp_rate(60_000));
    let started = Instant::now();
    let _ = run_trial(
        server.address("127.0.0.1"),
        &lowest,
        IpFamily::V4,
        &ClientOptions::default(),
        false,
    );
    assert!(
        started.elapsed() < Duration::from_secs(6),
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn host_facts_stay_home_with_no_host_facts() {
    let server = TestServer::start_with(ServerConfig {
        host_facts: false,
        ..Default::default()
    });
    let spec = short_spec(TestKind::TcpRr, 64);
    let report = trial(server.address("127.0.0.1"), &spec);
    assert!(report.server_host.is_none());
    let open = TestServer::start(ServerLimits::default(), None);
    assert!(trial(open.address("127.0.0.1"), &spec)
        .server_host
        .is_some());
}

#[test]
fn busy_refusals_cost_no_thread_and_name_the_reason() {
    let limits = ServerLimits {
        max_sessions: 1,
        max_sessions_per_source: Some(1),
        ..Default::default()
    };
    let server = TestServer::start(limits, None);
    let mut first = connect(server.address("127.0.0.1"));
    hello(&mut first);
    for _ in 0..20 {
        let mut stream = connect(server.address("127.0.0.1"));
        let hello = Message::Hello {
            magic: MAGIC.into(),
            version: PROTOCOL_VERSION,
        };
        frame::write_frame(&mut stream, &message::encode(&hello)).unwrap();
        let refusal = answer(&mut stream).expect("a busy refusal");
        assert!(refusal.contains("busy"), "{refusal}");
    }
    assert_eq!(server.handle.active_sessions(), 1);
}
