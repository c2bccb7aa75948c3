//! SQLite results store: schema, migrations, queries.
//!
//! (Skeleton: the owning issue fills this crate in.)
