//! `searchMany`'s answer as JSON Lines: `{"ok": response}` or `{"error": payload}` per request,
//! one per line, in order, each written on the thread that searched it. Lines, not one array:
//! the reader parses and shapes one answer at a time, so what it parses is garbage at once
//! instead of living (and being copied by the collector) until a whole array is shaped.

use crate::error::{Error, Result};
use crate::wire::SearchResponse;

/// One request's line: its answer, or its error.
pub fn entry(r: Result<SearchResponse>) -> Vec<u8> {
    match r {
        Ok(res) => {
            let mut out = Vec::with_capacity(1024);
            out.extend_from_slice(b"{\"ok\":");
            res.write_json(&mut out);
            out.push(b'}');
            out
        }
        Err(e) => error_entry(&e),
    }
}

/// The lines joined. An answer that would make the whole text longer than `max_len` bytes (a
/// caller's string limit) is replaced by an `E_LIMIT` entry, largest first, so a batch fails
/// query by query, never as a whole.
pub fn framed(mut parts: Vec<Vec<u8>>, max_len: usize) -> String {
    // Each part and the newline after it, but the last.
    let mut total: usize = parts.iter().map(|p| p.len() + 1).sum::<usize>().saturating_sub(1);
    if total > max_len {
        let mut order: Vec<usize> = (0..parts.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(parts[i].len()));
        for i in order {
            if total <= max_len {
                break;
            }
            let refusal = error_entry(&Error::Limit {
                message: format!(
                    "this answer ({} bytes) would make the whole batch too long to return",
                    parts[i].len()
                ),
                hint: "ask for fewer results or shorter previews, or split the batch".into(),
            });
            total = total - parts[i].len() + refusal.len();
            parts[i] = refusal;
        }
    }
    let mut out = Vec::with_capacity(total);
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        out.extend_from_slice(part);
    }
    // Every part is serde_json output or ASCII framing: valid UTF-8 by construction.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn error_entry(e: &Error) -> Vec<u8> {
    let mut out = b"{\"error\":".to_vec();
    out.extend_from_slice(e.payload_json().as_bytes());
    out.push(b'}');
    out
}
