//! Dual-stack behaviour tested for real rather than read from code: the
//! verification step of seed 000 (§8, back-to-back testing; Table I, the
//! interoperability matrix of IPv4 and IPv6 clients and servers).
//!
//! * [`local`]: this host's socket API, measured on loopback as Table I.
//! * [`remote`]: one service resolved per family, connected per family,
//!   timed, judged with the RFC 8305 model in [`happy_eyeballs`].
//! * [`address`]: one address analysed (RFC 5952 text, kind, reverse name).
//!
//! Safety: nothing here sends traffic anywhere but to the address the user
//! names (`check HOST`) or to loopback (`check --local`); tests use
//! loopback and namespaces they create.

pub mod address;
pub mod happy_eyeballs;
pub mod json;
pub mod local;
pub mod remote;
pub mod resolve;
pub mod target;

pub use address::{analyse, AddressReport};
pub use json::{CheckDocument, CHECK_SCHEMA, CHECK_SCHEMA_VERSION};
pub use local::{measure_local, render_table, LocalMatrix};
pub use remote::{check_host, render_host, HostReport};
pub use resolve::{Resolver, SystemResolver};
pub use target::Target;

/// Why a check could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// The text given to `dualperf addr` is not an address.
    #[error("`{input}` is not a valid IP address: {reason}")]
    InvalidAddress {
        /// The input.
        input: String,
        /// What is wrong.
        reason: String,
    },
    /// The `HOST[:PORT]` argument is malformed.
    #[error("`{input}` is not a valid HOST[:PORT]: {reason}")]
    InvalidTarget {
        /// The input.
        input: String,
        /// What is wrong.
        reason: String,
    },
    /// A socket operation for the local matrix failed.
    #[error("{what} (is IPv6 disabled on this host?)")]
    Socket {
        /// The operation and socket.
        what: String,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

#[cfg(test)]
mod rendering_tests;
