//! IETF IP Performance Metrics (IPPM) on a trace of received datagrams.
//!
//! Input is a slice of [`Arrival`](dualperf_model::observation::Arrival)
//! values `{sequence, sent_ns, received_ns}` **in the order the receiver took
//! them off the socket**, plus the number of datagrams the sender sent
//! (sequence numbers `0..sent`). Every function is pure: the trace is data.
//!
//! | module | metric | definition |
//! |---|---|---|
//! | [`duplicates`] | duplicate copies | RFC 5560 (counted, then excluded, as RFC 4737 §3.3 asks) |
//! | [`reordering`] | reordered packets, ratio, extent | RFC 4737 §3.3, §4.1, §4.2.1 |
//! | [`loss`] | loss with a waiting time, loss episodes | RFC 7680 §2.8, §3 |
//! | [`jitter`] | interarrival jitter | RFC 3550 §6.4.1 |
//! | [`delay`] | one-way delay, PDV, IPDV | RFC 7679, RFC 5481 / RFC 8219, RFC 3393 |
//! | [`trace`] | all of the above in one pass | — |

pub mod delay;
pub mod duplicates;
pub mod jitter;
pub mod loss;
pub mod reordering;
pub mod trace;
