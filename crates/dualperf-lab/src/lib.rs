//! Emulated dual-stack testbeds in Linux network namespaces, and kernel capability detection.
//!
//! (Skeleton: the owning issue fills this crate in.)
