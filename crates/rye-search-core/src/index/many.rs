//! `searchMany`'s answer as one JSON array: `{"ok": response}` or `{"error": payload}` per
//! request, in order, each written on the thread that searched it.

use super::SearchIndex;
use crate::error::Error;
use crate::request::SearchRequest;

impl SearchIndex {
    /// Runs `reqs` on all cores and frames the answers. An answer that would make the whole array
    /// longer than `max_len` bytes (a caller's string limit) is replaced by an `E_LIMIT` entry,
    /// largest first, so a batch fails query by query, never as a whole.
    pub fn search_many_json(&self, reqs: &[SearchRequest], max_len: usize) -> String {
        let mut parts = self.search_many_with(reqs, |r| match r {
            Ok(res) => {
                let mut out = Vec::with_capacity(1024);
                out.extend_from_slice(b"{\"ok\":");
                res.write_json(&mut out);
                out.push(b'}');
                out
            }
            Err(e) => error_entry(&e),
        });
        let mut total: usize = parts.iter().map(|p| p.len() + 1).sum::<usize>() + 1;
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
        let mut out = Vec::with_capacity(total + 1);
        out.push(b'[');
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(part);
        }
        out.push(b']');
        // Every part is serde_json output or ASCII framing: valid UTF-8 by construction.
        String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

fn error_entry(e: &Error) -> Vec<u8> {
    let mut out = b"{\"error\":".to_vec();
    out.extend_from_slice(e.payload_json().as_bytes());
    out.push(b'}');
    out
}
