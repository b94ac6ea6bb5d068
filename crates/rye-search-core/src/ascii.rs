//! Whether bytes are ASCII, many at a time. A chunk's bytes are folded with OR and tested once,
//! with no early exit inside the chunk, which the compiler turns into vector instructions
//! (`<[u8]>::is_ascii` reads a word at a time). Previews ask it of every hit's content and of
//! every preview; answers find where their first character beyond ASCII is.

/// Bytes looked at together when finding where a byte is: one SIMD register's worth.
pub const CHUNK: usize = 16;

/// Bytes looked at together when only asking whether any is beyond ASCII: nothing to find, so
/// fewer, wider steps.
const WIDE_CHUNK: usize = 64;

fn any_beyond_ascii<const N: usize>(chunk: &[u8; N]) -> bool {
    chunk.iter().fold(0, |any, &b| any | b) >= 0x80
}

/// Where the first byte beyond ASCII of `bytes` is. Searching a byte at a time, after a lossy
/// copy of the whole answer, was a sixth of writing c60k single-term answers with previews.
pub fn first_beyond_ascii(bytes: &[u8]) -> Option<usize> {
    let mut chunks = bytes.chunks_exact(CHUNK);
    let mut base = 0;
    for chunk in &mut chunks {
        if any_beyond_ascii::<CHUNK>(chunk.try_into().expect("a chunk")) {
            break;
        }
        base += CHUNK;
    }
    bytes[base..].iter().position(|&b| b >= 0x80).map(|i| base + i)
}

/// Whether `bytes` are all ASCII.
pub fn all_ascii(bytes: &[u8]) -> bool {
    let mut chunks = bytes.chunks_exact(WIDE_CHUNK);
    for chunk in &mut chunks {
        if any_beyond_ascii::<WIDE_CHUNK>(chunk.try_into().expect("a chunk")) {
            return false;
        }
    }
    chunks.remainder().is_ascii()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scans_agree_with_a_byte_at_a_time() {
        // Every length up to three wide chunks, with one byte beyond ASCII at each place, or none.
        for len in 0..200 {
            let ascii: Vec<u8> = (0..len).map(|i| (i % 128) as u8).collect();
            assert!(all_ascii(&ascii), "{len}");
            assert_eq!(first_beyond_ascii(&ascii), None, "{len}");
            for at in 0..len {
                let mut bytes = ascii.clone();
                bytes[at] = 0x80 | at as u8;
                assert!(!all_ascii(&bytes), "{len} {at}");
                assert_eq!(first_beyond_ascii(&bytes), Some(at), "{len} {at}");
                // A second one later changes nothing.
                if let Some(later) = bytes.get_mut(at + 7) {
                    *later = 0xff;
                }
                assert_eq!(first_beyond_ascii(&bytes), Some(at), "{len} {at}");
            }
        }
    }
}
