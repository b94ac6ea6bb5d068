//! One error type for the whole core; the binding maps each variant to a stable string code.

/// Everything the engine can refuse or fail at. `code()` is the stable contract with callers.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The query string does not follow the grammar; `position` is a 0-based character offset.
    #[error("{message} (at position {position})")]
    QuerySyntax { message: String, position: usize, hint: String },

    /// A query, request or document exceeds a documented limit.
    #[error("{message}")]
    Limit { message: String, hint: String },

    /// A request argument has a wrong value (unknown sort order, unknown field, bad filter…).
    #[error("{message}")]
    InvalidArgument { message: String, hint: String },

    /// Another process holds the index writer lock.
    #[error("the index at {path} is being written by another process")]
    IndexLocked { path: String },

    #[error("index error: {0}")]
    Index(#[from] tantivy::TantivyError),

    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

impl Error {
    pub fn code(&self) -> &'static str {
        match self {
            Error::QuerySyntax { .. } => "E_QUERY_SYNTAX",
            Error::Limit { .. } => "E_LIMIT",
            Error::InvalidArgument { .. } => "E_INVALID_ARGUMENT",
            Error::IndexLocked { .. } => "E_INDEX_LOCKED",
            Error::Index(_) => "E_INDEX",
            Error::Io(_) => "E_IO",
        }
    }

    /// A sentence telling the caller how to recover.
    pub fn hint(&self) -> String {
        match self {
            Error::QuerySyntax { hint, .. } | Error::Limit { hint, .. } | Error::InvalidArgument { hint, .. } => {
                hint.clone()
            }
            Error::IndexLocked { .. } => {
                "wait for the other writer to finish, or search the committed index read-only".into()
            }
            Error::Index(_) => "delete the index cache directory to rebuild it from the files".into(),
            Error::Io(_) => "check that the path exists and is readable".into(),
        }
    }

    /// Character offset of a syntax error, when there is one.
    pub fn position(&self) -> Option<usize> {
        match self {
            Error::QuerySyntax { position, .. } => Some(*position),
            _ => None,
        }
    }

    pub(crate) fn invalid(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error::InvalidArgument { message: message.into(), hint: hint.into() }
    }

    pub(crate) fn limit(message: impl Into<String>, hint: impl Into<String>) -> Self {
        Error::Limit { message: message.into(), hint: hint.into() }
    }
}

pub type Result<T> = std::result::Result<T, Error>;
