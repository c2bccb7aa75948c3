//! The message layer: arbitrary frame bodies through the hello check and
//! the message decoder; a decoded message must encode and decode again to
//! itself.
#![no_main]

use dualperf_engine::protocol::message::{check_hello, decode, encode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = check_hello(data);
    if let Ok(message) = decode(data) {
        let again = decode(&encode(&message)).expect("an encoded message decodes");
        assert_eq!(again, message);
    }
});
