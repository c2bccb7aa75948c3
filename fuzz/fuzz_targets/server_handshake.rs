//! The server's handshake state machine fed arbitrary bytes in arbitrary
//! chunks at arbitrary times, with and without a key, admitted or not. It
//! may refuse, never panic, and never admit a peer that did not prove the key.
#![no_main]

use std::time::{Duration, Instant};

use dualperf_engine::protocol::handshake::{ServerAction, ServerHandshake, ServerHandshakeConfig};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&flags, bytes)) = data.split_first() else {
        return;
    };
    let config = ServerHandshakeConfig {
        timeout: Duration::from_secs(5),
        auth_key: (flags & 1 == 1).then(|| b"key".to_vec()),
        boot_id: "boot".into(),
    };
    let start = Instant::now();
    let mut machine = ServerHandshake::new(start, config.timeout);
    let chunk = usize::from(flags >> 4) + 1;
    for (index, piece) in bytes.chunks(chunk).enumerate() {
        let now = start + Duration::from_millis(index as u64 * u64::from(flags & 0x0e));
        for action in machine.handle_bytes(now, piece, &config) {
            if action == ServerAction::Admit {
                // Random bytes cannot hold an HMAC of a fresh nonce.
                assert!(config.auth_key.is_none(), "admitted without the key");
                let admitted = if flags & 2 == 0 { Ok(()) } else { Err("busy".into()) };
                let _ = machine.admit(admitted, &config);
            }
        }
        if machine.is_done() {
            break;
        }
    }
    let _ = machine.handle_timeout(start + Duration::from_secs(6));
    let _ = machine.handle_eof(start);
});
