//! Previews: cuts, marks and finds, on random and hostile text.

use std::borrow::Cow;
use std::collections::HashSet;

use memchr::memmem;

use super::find::*;
use super::marks::*;
use super::*;
use crate::stem;
use crate::stored::shown_text;

/// What the previews of a ten-hit page mark.
fn page_marks(terms: impl IntoIterator<Item = String>, stems: impl IntoIterator<Item = String>) -> Marks {
    Marks::new(terms, stems, 10)
}

/// [`preview`] of any text.
fn preview_of(marks: &Marks, text: &str, chars: usize) -> (String, Vec<(u32, u32)>) {
    preview(marks, text.as_bytes(), chars).expect("text is UTF-8")
}

/// The next draw of a seeded generator (a 64-bit LCG): random texts, the same on every run.
fn next(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    *seed
}

#[test]
fn previews_end_on_word_boundaries() {
    assert_eq!(cut_at_word("the STRAẞE is long", 9), "the");
    assert_eq!(cut_at_word("data__Schlüssel x", 13), "data__Schlüssel x".chars().take(13).collect::<String>());
    assert_eq!(cut_at_word("a data__Schlüssel x", 14), "a");
    assert_eq!(cut_at_word("short", 80), "short");
    assert_eq!(cut_at_word("two words", 3), "two");
}

#[test]
fn highlights_are_utf16_ranges_of_matched_words() {
    let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
    let text = "𝔘 café and create_tool tools";
    let marks = highlights(text, &page_marks(set(&["cafe", "create"]), set(&["tool"])));
    let units: Vec<u16> = text.encode_utf16().collect();
    let shown: Vec<String> =
        marks.iter().map(|&(a, b)| String::from_utf16(&units[a as usize..b as usize]).unwrap()).collect();
    // Each part of an identifier is marked on its own; `tool` and `tools` by their stem.
    assert_eq!(shown, ["café", "create", "tool", "tools"]);
    assert!(highlights(text, &page_marks(set(&[]), set(&[]))).is_empty());
}

#[test]
fn previews_show_the_part_with_most_query_words_with_context_before_it() {
    let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
    let marks = page_marks(set(&["tmux", "session"]), set(&["detach"]));
    let filler = "lorem ipsum dolor sit amet ".repeat(12);
    let text = format!("{filler}one tmux here. {filler}keeps a tmux session when you detached it. {filler}");
    let (shown, marked) = preview_of(&marks, &text, 80);
    assert!(shown.contains("tmux session when you detached"), "{shown}");
    // Context before the first match, opening on a whole word.
    assert!(
        shown.starts_with("lorem")
            || shown.starts_with("ipsum")
            || shown.starts_with("dolor")
            || shown.starts_with("sit")
            || shown.starts_with("amet"),
        "{shown}"
    );
    assert!(shown.chars().count() <= 80);
    let units: Vec<u16> = shown.encode_utf16().collect();
    let words: Vec<String> =
        marked.iter().map(|&(a, b)| String::from_utf16(&units[a as usize..b as usize]).unwrap()).collect();
    assert_eq!(words, ["tmux", "session", "detached"]);
}

#[test]
fn a_preview_without_a_match_in_the_text_is_its_start() {
    let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
    let marks = page_marks(set(&["absent"]), set(&[]));
    let (shown, marked) = preview_of(&marks, &shown_text("  first   words of\n the text"), 10);
    assert_eq!(shown, "first");
    assert!(marked.is_empty());
}

#[test]
fn a_word_found_after_many_words_that_only_contain_it_is_shown() {
    let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
    // `tar` is inside every `start`; the preview must still open on the word itself.
    let text = format!("{}then the tar archive", "start ".repeat(40));
    for marks in [page_marks(set(&["tar"]), set(&[])), page_marks(set(&["tar", "a", "b", "c", "d"]), set(&[]))] {
        let (shown, marked) = preview_of(&marks, &text, 40);
        assert!(shown.contains("tar archive"), "{shown}");
        assert_eq!(marked, highlights(&shown, &marks), "{shown}");
        assert_eq!(marked.len(), 1, "{shown}");
    }
}

#[test]
fn shown_text_collapses_whitespace_runs_and_borrows_text_that_needs_none() {
    let mut texts: Vec<String> =
        ["  a  b\tc\n\x0bd\x0ce\rf  ", "one two three", "word", "", "   ", "ab  cd ef", "a\u{85}b", "x "]
            .map(String::from)
            .into();
    // Every mix of letters, single and repeated whitespace, and whitespace beyond ASCII.
    let mut seed = 7u64;
    for _ in 0..20_000 {
        let len = (next(&mut seed) >> 33) as usize % 12;
        texts.push(
            (0..len)
                .map(|_| {
                    ['a', 'b', ' ', '\n', 'é', '\u{3000}', '\t', '\r', '\u{a0}', '搜', '\x0b', '\x0c', '\x1f', ' ']
                        [(next(&mut seed) >> 33) as usize % 14]
                })
                .collect(),
        );
    }
    for text in &texts {
        let general = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let shown = shown_text(text);
        assert_eq!(shown, general, "{text:?}");
        assert_eq!(matches!(shown, Cow::Borrowed(_)), general == *text, "{text:?}");
    }
}

#[test]
fn a_preview_opens_after_any_whitespace_character() {
    let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
    // A long word after a three-byte space (U+3000) and a no-break space.
    for space in ['\u{3000}', '\u{a0}'] {
        let text = format!("{}{space}ΟΔΟΣΟΔΟΣΟΔΟΣ__ภาษาไทย_fileSystem tail", "STRAẞE ÆRØ 搜索引擎".repeat(3));
        let (shown, marked) = preview_of(&page_marks(set(&["system"]), set(&[])), &shown_text(&text), 40);
        // The word is too long to open on: the preview opens on the matched part.
        assert!(shown.starts_with("System"), "{shown}");
        assert!(!marked.is_empty());
    }
}

#[test]
fn byte_at_a_time_scans_agree_with_decoding_every_character() {
    // Every byte the word table holds is a word byte of the rule it was built from.
    for b in 0..=255u8 {
        assert_eq!(in_word(b), in_ascii_word(b) || b >= 0x80, "{b:#x}");
    }
    // White space of every kind (a vertical tab, a no-break space, a next-line, an em space),
    // among ASCII, accents and CJK.
    let alphabet: Vec<char> = "ab Z9-_.\t\n\u{b}\u{c}\r\u{a0}\u{85}\u{2003}é搜".chars().collect();
    let mut seed = 7;
    for _ in 0..20_000 {
        let len = (next(&mut seed) % 24) as usize;
        let text: String = (0..len).map(|_| alphabet[(next(&mut seed) >> 33) as usize % alphabet.len()]).collect();
        let decoded = text.char_indices().find(|c| c.1.is_whitespace()).map(|(i, c)| i + c.len_utf8());
        assert_eq!(after_whitespace(&text), decoded, "{text:?}");
        if text.is_ascii() {
            for anchor in 0..=text.len() {
                for lead in 0..6 {
                    let read = lead_in(&text, anchor, lead, true);
                    assert_eq!(read, lead_in(&text, anchor, lead, false), "{text:?} at {anchor}, lead {lead}");
                }
            }
        }
    }
}

#[test]
fn highlights_moved_from_the_text_agree_with_highlights_found_in_the_preview() {
    let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
    let marks = page_marks(set(&["tool", "create", "create_tool"]), set(&["run"]));
    let runs = "Intro  text\n\n with   a Tool:   create_tool runs\tthe  Running tools; tool-chain and\r\n  more tool words at the end of it";
    let single =
        "Intro text\nwith a Tool: create_tool runs\tthe Running tools; tool-chain and\nmore tool words at the end ";
    for text in [runs, single] {
        for chars in [10, 25, 40, 60, 200] {
            let (shown, marked) = preview_of(&marks, &shown_text(text), chars);
            assert_eq!(marked, highlights(&shown, &marks), "{chars}: {shown}");
        }
    }
}

#[test]
fn highlights_moved_from_text_in_any_script_agree_with_highlights_found_in_the_preview() {
    // Words in many scripts, forms (NFC and NFD accents, compatibility forms, capitals),
    // joined by joiners, CJK runs without spaces, symbols beside words; queries of their
    // tokens and stems, as a search would mark them.
    let words = [
        "Café",
        "cafe\u{301}",
        "naïve",
        "STRAẞE",
        "straße",
        "Schlüssel",
        "ﬁle",
        "file-system",
        "fileSystem",
        "create_tool",
        "Привет",
        "мир",
        "Ключ",
        "搜索引擎",
        "中文搜索",
        "ΟΔΟΣ",
        "οδός",
        "ภาษาไทย",
        "Ａｂｃ",
        "relatives—which",
        "“quoted”",
        "it’s",
        "tools",
        "running",
        "x²",
        "①",
        "→",
        "🙂",
        "a",
        "the",
        "data__Schlüssel",
        "日本語テキスト",
    ];
    let mut seed = 11u64;
    let mut compared = 0;
    for _ in 0..400 {
        let len = 5 + (next(&mut seed) >> 33) as usize % 60;
        let text: Vec<&str> = (0..len).map(|_| words[(next(&mut seed) >> 33) as usize % words.len()]).collect();
        let text = text.join(" ");
        let (mut terms, mut stems) = (HashSet::new(), HashSet::new());
        for _ in 0..1 + (next(&mut seed) >> 33) % 3 {
            let word = words[(next(&mut seed) >> 33) as usize % words.len()];
            tokenizer::for_each_token(word, |t| {
                terms.insert(t.text.to_string());
                stems.extend(stem::stem(t.text).map(|s| s.into_owned()));
            });
        }
        let marks = page_marks(terms, stems);
        for chars in [12, 30, 80, 200] {
            let (shown, marked) = preview_of(&marks, &text, chars);
            // Where the preview opens inside a word (one too long to open on), tokenising the
            // preview alone splits that word otherwise: compared only where it opens on a word.
            let opens_on_word = text.match_indices(shown.as_str()).all(|(at, _)| at == 0 || text[..at].ends_with(' '));
            if opens_on_word {
                assert_eq!(marked, highlights(&shown, &marks), "{chars}: {shown:?} of {text:?}");
                compared += 1;
            }
        }
    }
    assert!(compared > 1000, "{compared}");
}

#[test]
fn runs_beyond_ascii_start_where_characters_that_may_be_in_a_token_begin() {
    // ASCII, letters and a mark beyond it, and symbols (never part of a word).
    let pieces = ["a", " ", "-", "é", "\u{301}", "ж", "中", "─", "→", "—", "✅", "①", "²"];
    let mut seed = 5u64;
    for len in (0..40).chain([200, 1000]) {
        for _ in 0..50 {
            let text: String = (0..len).map(|_| pieces[next(&mut seed) as usize % pieces.len()]).collect();
            let chars: Vec<(usize, char)> = text.char_indices().collect();
            // Each maximal run of characters beyond ASCII, kept when one of them is a word character.
            let mut naive = Vec::new();
            let mut i = 0;
            while i < chars.len() {
                if chars[i].1.is_ascii() {
                    i += 1;
                    continue;
                }
                let start = i;
                while i < chars.len() && !chars[i].1.is_ascii() {
                    i += 1;
                }
                let touches_word = |c: Option<&(usize, char)>| {
                    c.is_some_and(|&(_, c)| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                };
                let touching = touches_word(start.checked_sub(1).map(|b| &chars[b])) || touches_word(chars.get(i));
                if touching || chars[start..i].iter().any(|&(_, c)| c.is_alphanumeric() || c == '\u{301}') {
                    naive.push(chars[start].0);
                }
            }
            assert_eq!(runs_beyond_ascii(&text), naive, "{text:?}");
        }
    }
}

#[test]
fn the_first_term_is_found_across_stretch_seams() {
    // `abab` begins before the first stretch (8 bytes) ends, and ends after it; `b` is found
    // inside it, later.
    let first = |text: &[u8], terms: &[&[u8]], stretch| {
        let finders: Vec<_> = terms.iter().map(|t| memmem::Finder::new(t).into_owned()).collect();
        let longest = terms.iter().map(|t| t.len()).max().unwrap_or(0);
        first_of_few(text, &finders, longest, stretch, &mut Vec::new())
    };
    assert_eq!(first(b"xxxxxABab", &[b"abab", b"b"], 1), Some(5));
    let mut seed = 7u64;
    // Mostly other bytes, so that a text's first find may lie at any seam.
    let alphabet = b"abAB -x.\xc3\xa9 -x.-x.-x. -x.-x.-x. -x.-x.-x.";
    for _ in 0..50_000 {
        let len = (next(&mut seed) % 60) as usize;
        let text: Vec<u8> = (0..len).map(|_| alphabet[(next(&mut seed) % alphabet.len() as u64) as usize]).collect();
        let terms: Vec<Vec<u8>> = (0..1 + next(&mut seed) % 3)
            .map(|_| (0..1 + next(&mut seed) % 4).map(|_| b"ab"[(next(&mut seed) % 2) as usize]).collect())
            .collect();
        let terms: Vec<&[u8]> = terms.iter().map(Vec::as_slice).collect();
        let lower = text.to_ascii_lowercase();
        let whole = terms.iter().filter_map(|t| memmem::find(&lower, t)).min();
        let stretch = 1 + (next(&mut seed) % 12) as usize;
        assert_eq!(first(&text, &terms, stretch), whole, "{text:?} {terms:?} {stretch}");
    }
}

#[test]
fn ascii_lowercase_is_the_standard_library_s() {
    let every_byte: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
    for len in [0, 1, 31, 32, 33, every_byte.len()] {
        // Into room that held something longer: nothing of it stays.
        let mut out = vec![b'X'; 600];
        ascii_lowercase_into(&every_byte[..len], &mut out);
        assert_eq!(out, every_byte[..len].to_ascii_lowercase());
    }
}

#[test]
fn a_long_text_beyond_ascii_is_shown_around_its_first_term_among_many() {
    // Past its window's span, text beyond ASCII is shown around the first term in it, found
    // for all of a wildcard's expansions in one pass.
    let filler = "Größe café ".repeat(1000);
    let text = shown_text(&format!("{filler}the Zeta word {filler}zz7 tail")).into_owned();
    let terms: Vec<String> = (0..1000).map(|i| format!("zz{i}")).chain(["zeta".into()]).collect();
    let marks = page_marks(terms, Vec::new());
    let (shown, marked) = preview_of(&marks, &text, 60);
    assert!(shown.contains("Zeta"), "{shown}");
    let [(a, b)] = marked[..] else { panic!("{marked:?} in {shown}") };
    let units: Vec<u16> = shown.encode_utf16().collect();
    assert_eq!(String::from_utf16_lossy(&units[a as usize..b as usize]), "Zeta");
    // No term at all: the beginning.
    let none = page_marks(vec!["absent".to_string()], Vec::new());
    assert!(preview_of(&none, &text, 60).0.starts_with("Größe"));
}

#[test]
fn a_long_ascii_text_is_read_in_a_window_of_whole_words_around_its_first_term() {
    let filler = "lorem ipsum ".repeat(1000);
    let text = shown_text(&format!("{filler}the Library word {filler}library")).into_owned();
    let marks = page_marks(vec!["library".to_string()], Vec::new());
    let (shown, marked) = preview_of(&marks, &text, 60);
    let [(a, b)] = marked[..] else { panic!("{marked:?} in {shown}") };
    assert_eq!(&shown[a as usize..b as usize], "Library");
    // Another form of the word, far in: the window is around it too.
    let text = shown_text(&format!("{filler}{filler}the Library word")).into_owned();
    let stems = stem::stem("libraries").map(|s| s.to_string());
    let marks = page_marks(vec!["libraries".to_string()], stems);
    let (shown, marked) = preview_of(&marks, &text, 60);
    let [(a, b)] = marked[..] else { panic!("{marked:?} in {shown}") };
    assert_eq!(&shown[a as usize..b as usize], "Library");
    // Wherever the span ends, the window ends where a word does: a word cut short could
    // pass for a query word.
    let mut seed = 7;
    for _ in 0..300 {
        let words: Vec<String> = (0..600).map(|_| "x".repeat(1 + (next(&mut seed) % 12) as usize)).collect();
        let text = words.join(" ");
        let first = (next(&mut seed) as usize) % text.len();
        let (window, _) = preview_window(text.as_bytes(), |_| Some(first), 60).expect("text is UTF-8");
        let start = window.as_ptr() as usize - text.as_ptr() as usize;
        let end = start + window.len();
        assert!(start == 0 || text.as_bytes()[start - 1] == b' ', "opens inside a word at {start}");
        assert!(end == text.len() || text.as_bytes()[end] == b' ', "ends inside a word at {end}");
    }
}

#[test]
fn only_the_window_of_a_long_text_is_read() {
    let filler = "lorem ipsum ".repeat(1000);
    let mut text = format!("é {filler}the Library word {filler}").into_bytes();
    let marks = page_marks(vec!["library".to_string()], Vec::new());
    // Damage far from the first term is never read: the window around it is shown, and as
    // ASCII, though the text is not.
    let end = text.len() - 10;
    text[end] = 0xff;
    let (shown, marked) = preview(&marks, &text, 60).expect("the window is UTF-8");
    let [(a, b)] = marked[..] else { panic!("{marked:?} in {shown}") };
    assert_eq!(&shown[a as usize..b as usize], "Library");
    let (window, ascii) = preview_window(&text, |t| marks.first_term(t), 60).expect("the window is UTF-8");
    assert!(ascii && window.contains("the Library word"), "{window}");
    // Damage inside the window is an error, never a panic or a cut inside a character.
    let library = memmem::find(&text, b"Library").expect("in the text");
    text[library + 12] = 0xff;
    assert!(preview(&marks, &text, 60).is_err());
    // Damage that is all continuation bytes, longer than a window, after a space: the end
    // cannot back up to a character before the start; an error, never a panic.
    let mut damaged = b"x ".repeat(2000);
    damaged.extend(std::iter::repeat_n(0x80u8, 3000));
    damaged.extend(b" library".repeat(10));
    for first in [4300, 5000, 6990, damaged.len() - 7] {
        assert!(preview_window(&damaged, |_| Some(first), 60).is_err(), "{first}");
    }
    assert!(preview(&marks, &damaged, 60).is_err());
    // A window that would open or end inside a character moves to where one begins.
    let mut seed = 11;
    let text = "Größe café 搜索 ".repeat(400);
    for _ in 0..300 {
        let first = (next(&mut seed) as usize) % text.len();
        let (window, _) = preview_window(text.as_bytes(), |_| Some(first), 60).expect("text is UTF-8");
        let start = window.as_ptr() as usize - text.as_ptr() as usize;
        assert!(start == 0 || text.as_bytes()[start - 1] == b' ', "opens inside a word at {start}");
    }
}

#[test]
fn long_texts_of_compounds_mark_what_tokenising_marks_in_one_pass() {
    // Words of 100,000 and 300,000 joiners (walking one from each of them took minutes), and
    // 60,000 compounds with a thousand patterns (comparing each with each would crawl).
    let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
    let texts = [
        format!("{}realtime", "ab-".repeat(100_000)),
        format!("real{}time", "-".repeat(300_000)),
        "x-y ab-cd x_1 ".repeat(20_000),
    ];
    // Many patterns (as a wildcard's expansions give) beginning as the compounds do.
    let many: Vec<String> = (0..1000).map(|i| format!("x{i}")).chain(["xy".into(), "abcd".into()]).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let queries = [&["abab"][..], &["realtime"], &["ab"], &many];
    for (text, terms) in texts.iter().flat_map(|t| queries.map(|q| (t, q))) {
        let marks = page_marks(set(terms), set(&[]));
        let found: Vec<_> = marks.matches(text, true, MAX_MATCHES).0.iter().map(|m| (m.from, m.to)).collect();
        let mut every = Vec::new();
        tokenizer::for_each_token(text, |t| {
            if marks.weight(t.text) > 0.0 && every.len() < MAX_MATCHES {
                every.push((t.from, t.to));
            }
        });
        assert_eq!(found, every, "{} terms", terms.len());
    }
}

#[test]
fn finds_mark_what_tokenising_every_word_marks() {
    let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<HashSet<_>>();
    // Patterns found inside other words (`are`; `ana` overlapping itself in `banAna`),
    // camel case, joiners and digits, one pattern beginning with another (`tar`, `tarball`);
    // words whose folded form is a term (`Café`, NFD `étude`), terms in other scripts, and
    // ASCII parts of words beyond ASCII (`中文abc`), words beside symbols (`tar─ball`).
    let queries = [
        page_marks(set(&["areas"]), set(&["area"])),
        page_marks(set(&["ana", "nan"]), set(&[])),
        page_marks(set(&["tar", "tarball", "star"]), set(&["ball"])),
        page_marks(set(&["file-system", "system", "x86"]), set(&["run"])),
        page_marks(set(&["cafe", "munchen", "etude", "strasse", "abc"]), set(&[])),
        page_marks(set(&["οδος", "中文", "文a"]), set(&["naiv"])),
        page_marks(set(&["a", "b", "c", "d", "e", "f"]), set(&[])),
        // Only in a compound's joined form (`real-time`, `soft-ware` → `software`).
        page_marks(set(&["realtime"]), set(&[&stem::stem("software").unwrap()[..]])),
        // Terms in letters the lookup table folds, whole, as parts and joined.
        page_marks(set(&["мир", "grosse", "große", "οδοσ", "cafe"]), set(&[])),
        page_marks(set(&["приветмир", "cafebar", "application", "arger"]), set(&[])),
        page_marks(set(&["config", "ファイ", "がが", "豈中", "ไท"]), set(&["read"])),
    ];
    let words = [
        "areas",
        "Areas",
        "hardware",
        "software-areas",
        "dataAreas",
        "AREAS",
        "banana",
        "Banana",
        "bAnanas",
        "ananas",
        "banAna",
        "star",
        "tarball",
        "Tarballs",
        "mustard",
        "file-system",
        "filesystem",
        "fileSystem",
        "x86",
        "ax86",
        "running",
        "Runs",
        "outrun",
        "HTMLParser",
        "are",
        "nan",
        "Café",
        "café",
        "cafébar",
        "München",
        "e\u{301}tude",
        "Straße",
        "STRASSE",
        "中文abc",
        "abc中文",
        "ΟΔΟΣ",
        "οδος-x",
        "naïve",
        "naive",
        "x—y",
        "a\u{3000}b",
        "Ærø",
        "設定ファイルconfigを読む",
        "か\u{3099}が",
        "\u{f900}中文",
        "ภาษาไทยabc",
        "l’application",
        "d’Ärger—x",
        "Привет__мир",
        "мир-Ключ",
        "Größe",
        "größe_x",
        "GRÖSSE",
        "Café-Bar",
        "ΟΔΟΣ_οδός",
        "Ключ",
        "real-time",
        "Real_Time",
        "real-times",
        "soft-ware",
        "Soft-wares",
        "x-realtime",
        "real--time",
        "r-e-a-l-t-i-m-e",
        "--Real-time",
        "soft__ware",
        "re_al-ti--me",
        // Symbols beyond ASCII, which are never part of a word, beside words and alone.
        "─",
        "──────",
        "→",
        "✅",
        "tar─ball",
        "──Areas",
        "café→areas",
        "│run│",
        "①",
        "x²",
    ];
    let mut seed = 11u64;
    for _ in 0..4000 {
        let len = (next(&mut seed) >> 33) as usize % 12;
        let text: String = (0..len)
            .map(|_| {
                let r = next(&mut seed);
                [" ", "_", "-", ", ", "", " -- "][(r >> 40) as usize % 6].to_string()
                    + words[(r >> 33) as usize % words.len()]
            })
            .collect();
        for marks in &queries {
            let mut every = Vec::new();
            tokenizer::for_each_token(&text, |t| {
                if marks.weight(t.text) > 0.0 {
                    every.push((t.from, t.to));
                }
            });
            let found: Vec<_> =
                marks.matches(&text, text.is_ascii(), usize::MAX).0.iter().map(|m| (m.from, m.to)).collect();
            assert_eq!(found, every, "{text:?}");
        }
    }
}
