//! Admission of every test kind, media profiles and load flows included
//! (issue 29): arbitrary bytes as a control message (a `request` carries a
//! full `TestSpec`, media profile included) and as a load. Whatever is
//! admitted must be bounded: its declared memory within the server's cap,
//! its media packets within a UDP datagram; nothing may panic, and sizing a
//! media frame packet by packet must stay cheap.
#![no_main]

use dualperf_engine::admission::{demand, MAX_MEDIA_PACKET_BYTES};
use dualperf_engine::client::load::load_flow_spec;
use dualperf_engine::limits::{validate_spec, ServerLimits, MAX_SESSION_MEMORY};
use dualperf_engine::protocol::message::{decode, Message};
use dualperf_model::{LoadSpec, MediaProfile, TestKind, TestSpec};
use libfuzzer_sys::fuzz_target;

fn check_admitted(spec: &TestSpec, cap: u64) {
    let declared = demand(spec).expect("an admitted spec declares its demand");
    assert!(declared.memory_bytes <= cap, "{declared:?}");
    if let (TestKind::Media, Some(profile)) = (spec.kind, &spec.media) {
        assert!(profile.largest_packet_bytes() <= MAX_MEDIA_PACKET_BYTES);
        if let MediaProfile::Video(video) = profile {
            // The sender sizes packets one by one; the first frame's
            // count is bounded by the 16 MiB frame cap over 20-byte chunks.
            assert!(video.packets_of_frame(0) <= (16 << 20) / 20 + 1);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let limits = ServerLimits::default();
    if let Ok(Message::Request(request)) = decode(data) {
        if limits.check(&request.spec).is_ok() {
            check_admitted(&request.spec, limits.max_session_memory);
        }
    }
    if let Ok(load) = serde_json::from_slice::<LoadSpec>(data) {
        let measured = TestSpec::new(TestKind::TcpRr, 64);
        for flow in &load.flows {
            let spec = load_flow_spec(&flow.spec, &load, &measured);
            if validate_spec(&spec).is_ok() {
                check_admitted(&spec, MAX_SESSION_MEMORY);
            }
        }
    }
});
