//! Dual-stack behaviour checks: local socket API matrix, host reachability per family, address analysis.
//!
//! (Skeleton: the owning issue fills this crate in.)
