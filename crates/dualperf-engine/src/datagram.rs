//! The udp-stream datagram header and hello: the byte format lives in
//! [`dualperf_model::datagram`], where the wire check (`dualperf-wire`)
//! reads it too without depending on the engine; re-exported here so the
//! engine's senders and receivers keep their paths.

pub use dualperf_model::datagram::{
    hello, read_header, read_hello, write_header, Header, FLAG_WARMUP, HEADER_BYTES, HELLO_BYTES,
};
