//! Scanner for IPv4-only constructs in source code.
//!
//! (Skeleton: the owning issue fills this crate in.)
