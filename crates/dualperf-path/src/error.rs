//! The crate's one error type.

use std::net::IpAddr;

/// What can go wrong while probing.
#[derive(Debug, thiserror::Error)]
pub enum PathError {
    /// A socket could not be created or configured.
    #[error("{what}: {source}")]
    Socket {
        /// What was being done.
        what: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The creating the probe socket needs a privilege this process lacks.
    #[error("{what} needs CAP_NET_RAW (run as root)")]
    Privilege {
        /// What needed it.
        what: String,
    },
    /// A target that is not of the family it was given for.
    #[error("{target} is not an {family} address")]
    WrongFamily {
        /// The target.
        target: IpAddr,
        /// The family it was given for.
        family: &'static str,
    },
}

impl PathError {
    /// A [`PathError::Socket`] with context.
    pub(crate) fn socket(what: impl Into<String>, source: std::io::Error) -> Self {
        PathError::Socket {
            what: what.into(),
            source,
        }
    }
}
