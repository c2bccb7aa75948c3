//! Sockets, traffic generators, meters, CPU sampling, the control protocol and the server.
//!
//! (Skeleton: the owning issue fills this crate in.)
