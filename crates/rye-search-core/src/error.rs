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

    /// A request names an item the index does not hold.
    #[error("{message}")]
    NotFound { message: String, hint: String },

    /// Another process holds the index writer lock.
    #[error("the index at {path} is being written by another process")]
    IndexLocked { path: String },

    #[error("index error: {0}")]
    Index(#[from] tantivy::TantivyError),

    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),

    /// The index files on disk fail their checksums or cannot be decoded.
    #[error("the index at {path} is damaged: {detail}")]
    Corrupt { path: String, detail: String },

    /// A bug: a panic inside the engine, contained so that the process and the index live on.
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    pub fn code(&self) -> &'static str {
        match self {
            Error::QuerySyntax { .. } => "E_QUERY_SYNTAX",
            Error::Limit { .. } => "E_LIMIT",
            Error::InvalidArgument { .. } => "E_INVALID_ARGUMENT",
            Error::NotFound { .. } => "E_NOT_FOUND",
            Error::IndexLocked { .. } => "E_INDEX_LOCKED",
            Error::Index(_) if self.exhausted() || self.refused_by_disk().is_some() => "E_IO",
            Error::Index(_) => "E_INDEX",
            Error::Io(_) => "E_IO",
            Error::Corrupt { .. } => "E_INDEX_CORRUPT",
            Error::Internal(_) => "E_INTERNAL",
        }
    }

    /// A sentence telling the caller how to recover.
    pub fn hint(&self) -> String {
        match self {
            Error::QuerySyntax { hint, .. }
            | Error::Limit { hint, .. }
            | Error::InvalidArgument { hint, .. }
            | Error::NotFound { hint, .. } => hint.clone(),
            Error::IndexLocked { .. } => {
                "wait for the other writer to finish, or search the committed index read-only".into()
            }
            Error::Index(_) | Error::Io(_) if self.exhausted() => {
                "the process ran out of file descriptors, threads or memory: raise its limits (ulimit -n, ulimit -u; \
                 RUST_MIN_STACK sets each new thread's stack) and try again"
                    .into()
            }
            Error::Index(_) | Error::Io(_) if matches!(self.refused_by_disk(), Some(28 | 122)) => {
                "the disk (or quota) that holds the index is full: free some space, or choose another cache \
                 directory (cacheDir, --cache-dir, RYE_SEARCH_CACHE_DIR); searches answer from the last commit"
                    .into()
            }
            Error::Index(_) | Error::Io(_) if self.refused_by_disk() == Some(30) => {
                "the index is on a read-only file system: choose a writable cache directory (cacheDir, \
                 --cache-dir, RYE_SEARCH_CACHE_DIR)"
                    .into()
            }
            Error::Index(_) => "delete the index cache directory to rebuild it from the files".into(),
            Error::Io(_) => "check that the path exists and is readable".into(),
            Error::Corrupt { .. } => {
                "it is a cache of the files: delete its directory (or let openIndex rebuild it)".into()
            }
            Error::Internal(_) => {
                "the index is still usable; please report this with the query or documents that caused it".into()
            }
        }
    }

    /// Whether this failed for want of file descriptors, threads or memory, which says nothing
    /// about the index: the same call succeeds once the process has them again.
    pub fn exhausted(&self) -> bool {
        let scarce = |e: &std::io::Error| {
            matches!(e.raw_os_error(), Some(23 | 24 | 12)) || e.kind() == std::io::ErrorKind::OutOfMemory
        };
        match self {
            Error::Io(e) => scarce(e),
            Error::Index(e) => {
                let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
                while let Some(c) = cause {
                    if c.downcast_ref::<std::io::Error>().is_some_and(scarce) {
                        return true;
                    }
                    cause = c.source();
                }
                // Tantivy keeps some I/O errors, and the threads it could not start, only in its text.
                let text = format!("{e:?}");
                text.contains("Too many open files")
                    || text.contains("code: 24,")
                    || text.contains("code: 23,")
                    || text.contains("Failed to spawn")
            }
            _ => false,
        }
    }

    /// The system's code when the disk refused a write: no space (28), read-only (30), over quota
    /// (122). Tantivy keeps some of these only in its text ("Failed to acquire Lockfile:
    /// IoError(Os { code: 30, … })").
    pub fn refused_by_disk(&self) -> Option<i32> {
        const CODES: [i32; 3] = [28, 30, 122];
        match self {
            Error::Io(e) => e.raw_os_error().filter(|c| CODES.contains(c)),
            Error::Index(e) => {
                let text = format!("{e:?}");
                CODES.into_iter().find(|c| text.contains(&format!("code: {c},")))
            }
            _ => None,
        }
    }

    /// The stable shape every caller sees: `{"code", "message", "hint", "position"}`.
    pub fn payload_json(&self) -> String {
        serde_json::json!({ "code": self.code(), "message": self.to_string(), "hint": self.hint(), "position": self.position() })
            .to_string()
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

/// Runs `f`, turning a panic into [`Error::Internal`]: a panic that reached N-API would abort
/// the whole Node process, and every MCP session with it. Shared state is lock-free or
/// recovers poisoned locks, so the index serves the next call.
pub fn contained<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic with no message".into());
            Err(Error::Internal(message))
        }
    }
}

/// Longest echo of a caller's text (an id, a name) in an error message, in characters.
const MAX_ECHO_CHARS: usize = 200;

/// `text` as an error message echoes it: cut, with an ellipsis, past [`MAX_ECHO_CHARS`], so a
/// huge id never makes a huge error.
pub fn echo(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MAX_ECHO_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]).into(),
        None => text.into(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tantivy::directory::error::LockError;

    use super::*;

    #[test]
    fn a_disk_that_refuses_is_the_systems_error_with_its_own_hint() {
        let full = Error::Io(std::io::Error::from_raw_os_error(28));
        assert_eq!((full.code(), full.refused_by_disk()), ("E_IO", Some(28)));
        assert!(full.hint().contains("full"), "{}", full.hint());
        // Tantivy keeps the read-only file system only inside its lock error.
        let lock = LockError::IoError(Arc::new(std::io::Error::from_raw_os_error(30)));
        let read_only = Error::Index(tantivy::TantivyError::LockFailure(lock, None));
        assert_eq!((read_only.code(), read_only.refused_by_disk()), ("E_IO", Some(30)));
        assert!(read_only.hint().contains("read-only"), "{}", read_only.hint());
        let other = Error::Index(tantivy::TantivyError::InvalidArgument("x".into()));
        assert_eq!((other.code(), other.refused_by_disk()), ("E_INDEX", None));
        assert!(other.hint().contains("delete the index cache"));
    }
}
