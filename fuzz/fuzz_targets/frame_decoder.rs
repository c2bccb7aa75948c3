//! The frame layer: arbitrary bytes, cut into arbitrary chunks, through the
//! incremental decoder and the blocking reader. Neither may panic, consume
//! past a frame, or return a body above its limit.
#![no_main]

use dualperf_engine::protocol::frame::{read_frame, FrameDecoder};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&cut, bytes)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(cut % 17) + 1;
    let limit = 1024;
    let mut decoder = FrameDecoder::new(limit);
    'outer: for piece in bytes.chunks(chunk) {
        let mut rest = piece;
        while !rest.is_empty() {
            let (used, frame) = decoder.push(rest);
            assert!(used <= rest.len());
            match frame {
                Some(Ok(body)) => assert!(body.len() <= limit as usize),
                Some(Err(_)) => break 'outer,
                None => assert_eq!(used, rest.len()),
            }
            rest = &rest[used..];
        }
    }
    let _ = decoder.end_of_stream();
    let _ = read_frame(&mut &bytes[..]);
});
