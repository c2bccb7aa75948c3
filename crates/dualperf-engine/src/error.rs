//! The engine's one error type. Every variant names the object that failed.

use std::io;

/// Why a trial, a session or a server operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// A socket operation failed; `what` names the socket and the operation.
    #[error("{what}")]
    Socket {
        /// E.g. "connecting control channel to 127.0.0.1:5180".
        what: String,
        /// The cause.
        #[source]
        source: io::Error,
    },

    /// The control channel carried something that is not a valid frame.
    #[error("control channel: {0}")]
    Protocol(String),

    /// The peer refused (busy, limits, authentication, unknown version).
    #[error("server refused: {0}")]
    Refused(String),

    /// A test parameter is out of range (size above the family's maximum
    /// datagram, duration above the server's limit, …).
    #[error("invalid test: {0}")]
    InvalidTest(String),

    /// A data flow failed during the trial (either end); the text says which and why.
    #[error("data flow failed: {0}")]
    Flow(String),

    /// The run was interrupted (Ctrl-C) before this trial started.
    #[error("interrupted")]
    Interrupted,
}

impl EngineError {
    /// Wraps an I/O error with a description of the failing socket operation.
    pub fn socket(what: impl Into<String>, source: io::Error) -> Self {
        EngineError::Socket {
            what: what.into(),
            source,
        }
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = EngineError> = std::result::Result<T, E>;

/// Adds a description of the failing socket operation to an `io::Result`.
pub(crate) trait IoContext<T> {
    /// Maps the error to [`EngineError::Socket`] with the text `what()` returns.
    fn context(self, what: impl FnOnce() -> String) -> Result<T>;
}

impl<T> IoContext<T> for io::Result<T> {
    fn context(self, what: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|source| EngineError::socket(what(), source))
    }
}
