//! Report rendering: HTML with SVG charts, Markdown and CSV, from stored results.
//!
//! (Skeleton: the owning issue fills this crate in.)

pub mod terminal;
