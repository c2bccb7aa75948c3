//! Pure statistics: observations to metrics, IPv4-versus-IPv6 comparison, header-overhead theory.
//!
//! (Skeleton: the owning issue fills this crate in.)
