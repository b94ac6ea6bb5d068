//! Whether bytes are ASCII, many at a time. A chunk's bytes are folded with OR and tested once,
//! with no early exit inside the chunk, which the compiler turns into vector instructions
//! (`<[u8]>::is_ascii` reads a word at a time). Previews ask it of every hit's content and of
//! every preview; a page, of every text it holds (to count it in UTF-16 units).

/// Bytes looked at together: nothing to find, only whether any is beyond ASCII, so wide steps.
const WIDE_CHUNK: usize = 64;

fn any_beyond_ascii<const N: usize>(chunk: &[u8; N]) -> bool {
    chunk.iter().fold(0, |any, &b| any | b) >= 0x80
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
            for at in 0..len {
                let mut bytes = ascii.clone();
                bytes[at] = 0x80 | at as u8;
                assert!(!all_ascii(&bytes), "{len} {at}");
                // A second one later changes nothing.
                if let Some(later) = bytes.get_mut(at + 7) {
                    *later = 0xff;
                    assert!(!all_ascii(&bytes), "{len} {at}");
                }
            }
        }
    }
}
