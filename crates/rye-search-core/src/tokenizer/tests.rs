//! The tokenizer on identifiers, scripts and folds, and its positions.

use super::chars::*;
use super::fold::*;
use super::words::*;
use super::*;

fn texts(s: &str) -> Vec<(String, usize)> {
    tokens(s).into_iter().map(|t| (t.text, t.position)).collect()
}

#[test]
fn word_characters_looked_up_are_those_of_the_rule() {
    for c in (0..0x3000).filter_map(char::from_u32) {
        assert_eq!(is_word_char(c), is_word_char_by_rule(c), "{c:?}");
    }
}

#[test]
fn letters_looked_up_fold_as_the_general_rules_fold_them() {
    // Every letter the table holds, alone and beside ASCII, then random words of ASCII,
    // those letters and characters the table leaves to the general rules (marks, `İ`, `ŉ`,
    // `ſ`, `ǅ`, CJK, compatibility forms), with final sigmas.
    let general = |t: &str| fold(t.to_lowercase());
    let general_part = |t: &str| fold(t.chars().flat_map(char::to_lowercase).collect());
    let mut words: Vec<String> =
        ALPHABETS.flat_map(|c| [c.to_string(), format!("x{c}Y"), format!("{c}{c}"), format!("{c}Σ")]).collect();
    let others =
        ['a', 'Z', '7', '\u{301}', '\u{130}', '\u{149}', '\u{17f}', 'ς', 'Σ', '中', 'ﬁ', 'Ａ', '\u{1e9e}', 'ǅ'];
    let letters: Vec<char> = ALPHABETS.collect();
    let mut seed = 3u64;
    let mut draw = |n: usize| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    for _ in 0..20_000 {
        let len = 1 + draw(8);
        words.push(
            (0..len)
                .map(|_| if draw(4) == 0 { others[draw(others.len())] } else { letters[draw(letters.len())] })
                .collect(),
        );
    }
    let mut looked_up = 0;
    for word in &words {
        assert_eq!(normalize(word), general(word), "{word:?}");
        assert_eq!(fold_part(word), general_part(word), "{word:?}");
        looked_up += usize::from(fold_alphabetic(word).is_some());
    }
    // Most of them took the table.
    assert!(looked_up > words.len() / 3, "{looked_up} of {}", words.len());
}

#[test]
fn ascii_shortcuts_agree_with_the_general_rules() {
    // Every mix of capitals, lower case and digits up to 6 bytes, and the words around them.
    let alphabet = ['a', 'B', 'c', 'D', '7', 'x', 'Y'];
    let mut words = vec![String::new()];
    for _ in 0..6 {
        let longer: Vec<String> = words.iter().flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}"))).collect();
        words.extend(longer);
    }
    words.extend(["HTTPServer", "fileSystem", "x86Arch", "getHTTP2Response", "ABC", "a1B2c3"].map(String::from));
    // Joined words, with the joiners in every place, and parts past the token limit.
    let long = "x".repeat(70);
    words.extend(["create_tool", "a-B_c", "fileSystem-HTTPServer_x86", "_x", "a__b", "x--Y-"].map(String::from));
    words.extend([format!("{long}_a"), format!("a-{long}"), format!("{long}B")]);
    for w in &words {
        // Every token of the ASCII path, as the general one makes them from `make_word`.
        let (mut ascii, mut general) = (Vec::new(), Vec::new());
        let mut record = |t: TokenRef<'_>| ascii.push((t.from, t.to, t.position, t.length, t.text.to_string()));
        let n = visit_ascii_parts(w, 3, 3 + w.len(), 5, &mut record);
        let word = make_word(w, 3, 3 + w.len());
        if word.parts.len() > 1 && kept(&word.whole) {
            general.push((3, 3 + w.len(), 5, word.parts.len(), word.whole.clone()));
        }
        let joined = without_joiners(&word.whole);
        if also_joined(&word.whole, word.parts.len()) && joined != word.whole && kept(&joined) {
            general.push((3, 3 + w.len(), 5, word.parts.len(), joined));
        }
        for (k, (part, &(from, to))) in word.parts.iter().zip(&word.spans).enumerate() {
            if kept(part) {
                general.push((from, to, 5 + k, 1, part.clone()));
            }
        }
        assert_eq!(ascii, general, "{w}");
        assert_eq!(n, word.parts.len().max(1), "{w}");
    }
    for w in &words {
        let (mut ascii, mut general) = (Vec::new(), Vec::new());
        ascii_camel_pieces(w.as_bytes(), 0, w.len(), &mut ascii);
        char_camel_pieces(w, 0, w.len(), &mut general);
        assert_eq!(ascii, general, "{w}");
        assert_eq!(normalize(w), fold(w.to_lowercase()), "{w}");
        assert_eq!(fold_part(w), fold(w.chars().flat_map(char::to_lowercase).collect()), "{w}");
    }
}

#[test]
fn snake_kebab_and_camel_are_split_and_kept_whole() {
    // Joined words are also one word without their joiners: `realtime` finds `real-time`.
    let t = |s: &str, p| (String::from(s), p);
    assert_eq!(texts("create_tool"), vec![t("create_tool", 0), t("createtool", 0), t("create", 0), t("tool", 1)]);
    assert_eq!(texts("file-system"), vec![t("file-system", 0), t("filesystem", 0), t("file", 0), t("system", 1)]);
    assert_eq!(texts("Real-Time"), vec![t("real-time", 0), t("realtime", 0), t("real", 0), t("time", 1)]);
    // Longer compounds and numbered ones are not written joined.
    assert_eq!(texts("a-b-c"), vec![t("a-b-c", 0), t("a", 0), t("b", 1), t("c", 2)]);
    assert_eq!(texts("x86-64"), vec![t("x86-64", 0), t("x86", 0), t("64", 1)]);
    assert_eq!(
        texts("fileSystem x"),
        vec![("filesystem".into(), 0), ("file".into(), 0), ("system".into(), 1), ("x".into(), 2)]
    );
    assert_eq!(texts("HTTPServer"), vec![("httpserver".into(), 0), ("http".into(), 0), ("server".into(), 1)]);
}

#[test]
fn punctuation_separates_and_dangling_joiners_are_dropped() {
    assert_eq!(texts("rye/core.bash"), vec![("rye".into(), 0), ("core".into(), 1), ("bash".into(), 2)]);
    assert_eq!(texts("_private- --x"), vec![("private".into(), 0), ("x".into(), 1)]);
    assert!(texts("!!! ... ").is_empty());
}

/// The first, straightforward version of `words`: the oracle for the in-place scanner.
fn reference_words(text: &str) -> Vec<(usize, usize)> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !is_word_char(chars[i].1) {
            i += 1;
            continue;
        }
        let mut end = i;
        while end < chars.len() {
            if is_word_char(chars[end].1) {
                end += 1;
            } else if is_joiner(chars[end].1) {
                let mut j = end;
                while j < chars.len() && is_joiner(chars[j].1) {
                    j += 1;
                }
                if j < chars.len() && is_word_char(chars[j].1) {
                    end = j;
                } else {
                    break;
                }
            } else {
                break;
            }
        }
        out.push((chars[i].0, if end < chars.len() { chars[end].0 } else { text.len() }));
        i = end;
    }
    out
}

/// xorshift64: a seeded stream of test inputs.
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

#[test]
fn in_place_scanner_matches_the_reference_on_every_mix_of_characters() {
    let alphabet: Vec<char> =
        "aZ9_- .\u{e9}\u{df}\u{4e2d}\u{1f600}I\u{130}\u{301}\u{a0}\u{2014}\u{663}".chars().collect();
    let mut seed = 0x9e3779b97f4a7c15u64;
    for _ in 0..20_000 {
        next(&mut seed);
        let len = (seed % 12) as usize;
        let text: String = (0..len).map(|k| alphabet[((seed >> (k * 4)) % alphabet.len() as u64) as usize]).collect();
        let spans: Vec<_> = word_spans(&text).collect();
        assert_eq!(spans, reference_words(&text), "{text:?}");
        // The plain-word fast path gives what the general path gives.
        for (start, end) in spans {
            let raw = &text[start..end];
            if is_plain(raw) {
                let w = make_word(raw, start, end);
                assert_eq!((w.whole.as_str(), w.parts.as_slice()), (raw, &[raw.to_string()][..]));
            }
        }
    }
}

#[test]
fn ascii_text_tokenises_in_one_pass_as_word_by_word() {
    // Words of every ASCII class with joiners, runs of them, punctuation and spaces between, and
    // words past the longest token kept.
    let alphabet: Vec<char> = "aZ9_-- .,x-Yq_1\t".chars().collect();
    let mut seed = 0x2545f4914f6cdd1du64;
    let listed = |text: &str, fast: bool| {
        let mut out = Vec::new();
        let mut visit = |t: TokenRef<'_>| out.push((t.text.to_owned(), t.from, t.to, t.position, t.length));
        let mut lower = String::new();
        match fast {
            true => for_each_ascii_token(text, &mut lower, &mut visit),
            false => for_each_word_token(text, &mut lower, &mut visit),
        }
        out
    };
    for round in 0..40_000 {
        next(&mut seed);
        let len = (seed % 24) as usize;
        let mut text: String =
            (0..len).map(|k| alphabet[((seed >> ((k * 3) % 60)) % alphabet.len() as u64) as usize]).collect();
        if round % 50 == 0 {
            text.insert_str(text.len() / 2, &"ab".repeat(MAX_TOKEN_BYTES / 2 + (round / 50) % 3 - 1));
        }
        assert_eq!(listed(&text, true), listed(&text, false), "{text:?}");
    }
    assert_eq!(
        texts("--create_tool-- Tool x_"),
        vec![
            ("create_tool".into(), 0),
            ("createtool".into(), 0),
            ("create".into(), 0),
            ("tool".into(), 1),
            ("tool".into(), 2),
            ("x".into(), 3),
        ]
    );
}

#[test]
fn unicode_and_long_tokens() {
    assert_eq!(texts("Über Straße"), vec![("uber".into(), 0), ("strasse".into(), 1)]);
    let folded: Vec<String> =
        tokens("Café résumé naïve Łódź Øresund Æsir façade-Ñandú").into_iter().map(|t| t.text).collect();
    assert_eq!(
        folded,
        ["cafe", "resume", "naive", "lodz", "oresund", "aesir", "facade-nandu", "facadenandu", "facade", "nandu"]
    );
    // Other scripts keep their letters; only case folds.
    assert_eq!(texts("Поиск Йод"), vec![("поиск".into(), 0), ("йод".into(), 1)]);
    assert_eq!(texts("ΟΔΟΣ οδος"), vec![("οδοσ".into(), 0), ("οδοσ".into(), 1)]);
    assert_eq!(normalize("ΟΔΟΣ"), "οδοσ");
    assert_eq!(normalize("CAFÉ*"), "cafe*");
    let long = "a".repeat(100);
    assert!(texts(&long).is_empty());
}

/// The tokens of `s` as indexed, space-separated.
fn folded(s: &str) -> String {
    tokens(s).into_iter().map(|t| t.text).collect::<Vec<_>>().join(" ")
}

#[test]
fn compatibility_forms_turkish_i_and_marks_fold_like_their_letters() {
    assert_eq!(folded("ﬁle ＡＢＣ ℌello"), "file abc hello");
    assert_eq!(folded("İstanbul ıstanbul ISTANBUL"), "istanbul istanbul istanbul");
    // NFD accents are part of their word and fold like the composed letter.
    assert_eq!(folded("Cafe\u{301}s Café"), "cafes cafe");
    // Devanagari vowel signs do not split a word.
    assert_eq!(folded("नमस्ते"), "नमस्ते");
    // Cyrillic й stays й in either form.
    assert_eq!(folded("и\u{306}од йод"), "йод йод");
}

#[test]
fn marks_people_leave_out_when_they_type_fold_away_and_letters_stay() {
    // Greek accents, composed or not, polytonic too.
    assert_eq!(folded("Καλημέρα ΐ ἀρχή καλημε\u{301}ρα"), "καλημερα ι αρχη καλημερα");
    // Russian ё and stress marks; й, Ukrainian ї and Belarusian ў stay letters.
    assert_eq!(folded("Ёлка ещё моло\u{301}ко й ї ў"), "елка еще молоко й ї ў");
    // Arabic vowel marks, tatweel, alef with hamza or madda, alef maqsura, teh marbuta.
    assert_eq!(folded("كِتَابًا أحمد إلى آخر مكتبــة"), "كتابا احمد الي اخر مكتبه");
    // Hebrew points and cantillation; maqaf still joins nothing it did not join before.
    assert_eq!(folded("סֵפֶר שָׁלוֹם"), "ספר שלום");
    // Signs that make Indic and Thai letters are kept.
    assert_eq!(folded("हिन्दी"), "हिन्दी");
    assert_eq!(normalize("ΚΑΛΗΜΈΡΑ"), "καλημερα");
}

#[test]
fn thai_runs_become_pairs_so_words_inside_long_runs_are_found() {
    let run = "ภาษาไทยเป็นภาษาที่ไม่มีการเว้นวรรคระหว่างคำ";
    assert!(run.len() > MAX_TOKEN_BYTES);
    let pairs: Vec<String> = tokens(run).into_iter().map(|t| t.text).collect();
    assert_eq!(pairs.len(), run.chars().count() - 1, "{pairs:?}");
    assert!(pairs.contains(&"ไท".to_string()) && pairs.contains(&"ทย".to_string()));
}

#[test]
fn cjk_runs_become_overlapping_pairs() {
    let pairs = |s: &str| texts(s).into_iter().map(|(t, p)| format!("{t}@{p}")).collect::<Vec<_>>().join(" ");
    assert_eq!(pairs("中文搜索"), "中文搜索@0 中文@0 文搜@1 搜索@2");
    assert_eq!(pairs("中文 搜索"), "中文@0 搜索@1");
    assert_eq!(pairs("中 x"), "中@0 x@1");
    assert_eq!(pairs("Rust语言"), "rust语言@0 rust@0 语言@1");
    assert_eq!(
        pairs("ひらがなカタカナ 한국어"),
        "ひらがなカタカナ@0 ひら@0 らが@1 がな@2 なカ@3 カタ@4 タカ@5 カナ@6 한국어@7 한국@7 국어@8"
    );
}

/// Every token covers exactly the original characters it came from, on char boundaries,
/// in every script the tokenizer treats specially: folding, case changes that change
/// lengths (`İ`, `ẞ`), identifier parts with any joiners, CJK pairs.
#[test]
fn token_offsets_cover_the_characters_they_came_from() {
    let alphabet = [
        "a",
        "Z",
        "9",
        "_",
        "-",
        "--",
        "__",
        " ",
        ".",
        "é",
        "É",
        "ß",
        "ẞ",
        "İ",
        "ı",
        "ﬁ",
        "Ａ",
        "ｂ",
        "Ж",
        "ж",
        "Σ",
        "ς",
        "ا",
        "ש",
        "क",
        "\u{94d}",
        "ก",
        "\u{e31}",
        "中",
        "文",
        "搜",
        "ひ",
        "カ",
        "한",
        "😀",
        "\u{200d}",
        "\u{200b}",
        "\u{feff}",
        "e\u{301}",
        "\r\n",
        "Ⅻ",
        "ǅ",
        "ŉ",
        "\u{1e9e}x",
        "x\u{130}Y",
    ];
    let mut seed = 0x2545f4914f6cdd1du64;
    for _ in 0..30_000 {
        let len = (next(&mut seed) % 16) as usize;
        let text: String = (0..len).map(|_| alphabet[(next(&mut seed) >> 33) as usize % alphabet.len()]).collect();
        for t in tokens(&text) {
            assert!(t.offset_from < t.offset_to && t.offset_to <= text.len(), "{text:?} {t:?}");
            assert!(text.is_char_boundary(t.offset_from) && text.is_char_boundary(t.offset_to), "{text:?} {t:?}");
            let source = &text[t.offset_from..t.offset_to];
            let whole = normalize(source);
            assert!(
                t.text == fold_part(source) || t.text == whole || t.text == without_joiners(&whole),
                "{text:?}: {t:?} from {source:?}"
            );
        }
    }
}

#[test]
fn words_that_are_one_token_as_they_stand_tokenise_as_split_and_folded_words_do() {
    let mut buf = String::new();
    for raw in
        ["library", "Library", "L", "Z9", "Ab1c", "abc123", "A1B", "HTTPServer", "ABC", "fileSystem", "Éclair", "a_b"]
    {
        let mut split = Vec::new();
        visit_parts(raw, 0, raw.len(), 0, &mut |t| split.push((t.from, t.to, t.position, t.length, t.text.to_owned())));
        match single_token(raw, &mut buf) {
            Some(token) => assert_eq!(split, vec![(0, raw.len(), 0, 1, token.to_owned())], "{raw}"),
            None => assert!(!["library", "Library", "L", "Z9", "Ab1c", "abc123"].contains(&raw), "{raw}"),
        }
    }
}

#[test]
fn parts_keep_their_original_spans() {
    let spans = |s: &str| {
        tokens(s).into_iter().map(|t| format!("{}={}", t.text, &s[t.offset_from..t.offset_to])).collect::<Vec<_>>()
    };
    assert_eq!(spans("my--Ключ"), ["my--ключ=my--Ключ", "myключ=my--Ключ", "my=my", "ключ=Ключ"]);
    assert_eq!(spans("Café"), ["cafe=Café"]);
    assert_eq!(spans("dataSchlüssel"), ["dataschlussel=dataSchlüssel", "data=data", "schlussel=Schlüssel"]);
    assert_eq!(spans("中文搜"), ["中文搜=中文搜", "中文=中文", "文搜=文搜"]);
}

/// What a token stream hands Tantivy, as plain values.
fn streamed(stream: &mut impl TokenStream) -> Vec<(String, usize, usize, usize, usize)> {
    let mut out = Vec::new();
    while stream.advance() {
        let t = stream.token();
        out.push((t.text.clone(), t.offset_from, t.offset_to, t.position, t.position_length));
    }
    out
}

#[test]
fn one_tokenizer_streams_each_value_as_tokens_lists_it_whatever_came_before() {
    let alphabet: Vec<char> = "aZ9_- .\u{e9}\u{df}\u{4e2d}\u{1f600}I\u{130}\u{301}\u{2014}Bc".chars().collect();
    let mut seed = 0x2545f4914f6cdd1du64;
    let mut tokenizer = IdentTokenizer::default();
    let long = "word ".repeat(3 * KEPT_TOKENS);
    for round in 0..5_000 {
        next(&mut seed);
        // Longer and shorter values in turn, and now and then one past what the buffer keeps:
        // nothing of an earlier value may show in a later one.
        let len = (seed % 40) as usize;
        let mut text: String =
            (0..len).map(|k| alphabet[((seed >> (k % 16 * 4)) as usize + k) % alphabet.len()]).collect();
        if round % 997 == 0 {
            text = long.clone();
        }
        let expected: Vec<_> = tokens(&text)
            .into_iter()
            .map(|t| (t.text, t.offset_from, t.offset_to, t.position, t.position_length))
            .collect();
        assert_eq!(streamed(&mut tokenizer.token_stream(&text)), expected, "{text:?}");
        assert!(tokenizer.buffer.tokens.len() <= KEPT_TOKENS, "a long value's tokens are let go");
    }
}

#[test]
fn a_value_gives_the_index_its_first_million_tokens_then_no_more() {
    let mut tokenizer = IdentTokenizer::default();
    let text = "word ".repeat(MAX_VALUE_TOKENS + 10) + "tail";
    let mut stream = tokenizer.token_stream(&text);
    let (mut count, mut last) = (0, String::new());
    while stream.advance() {
        count += 1;
        last.clone_from(&stream.token().text);
    }
    assert_eq!(count, MAX_VALUE_TOKENS);
    assert_eq!(last, "word", "the tail past the cap is not indexed");
    // The next value starts from nothing, with the buffer let go.
    drop(stream);
    assert!(tokenizer.buffer.tokens.len() <= KEPT_TOKENS);
    assert_eq!(streamed(&mut tokenizer.token_stream("tail")).len(), 1);
}
