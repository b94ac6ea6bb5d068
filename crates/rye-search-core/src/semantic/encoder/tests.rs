use super::*;

fn shipped() -> Option<Encoder> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../model/minilm-l6.rye-encoder");
    path.exists().then(|| Encoder::load(&path).expect("the shipped encoder loads"))
}

/// Measured: f32 0.9985–0.9998, int8 0.990–0.998.
#[test]
fn vectors_match_sentence_transformers_on_the_fixture_texts() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../model/minilm-l6.rye-encoder");
    let bytes = std::fs::read(path).expect("model/minilm-l6.rye-encoder is in the repository");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test/fixtures/encoder-embeddings.json");
    let cases: Vec<serde_json::Value> = serde_json::from_slice(&std::fs::read(fixture).unwrap()).unwrap();
    for (int8, least) in [(false, 0.998), (true, 0.985)] {
        let encoder = Encoder::with_precision(&bytes, int8).unwrap();
        for case in &cases {
            let text = case["text"].as_str().unwrap();
            let want: Vec<f32> =
                case["vector"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() as f32).collect();
            let got = encoder.embed(&[text], MAX_SEQUENCE).remove(0).expect("every fixture text has words");
            let cosine: f32 = got.iter().zip(&want).map(|(a, b)| a * b).sum();
            assert!(cosine > least, "{text:?} (int8: {int8}): cosine {cosine} with sentence-transformers' vector");
        }
    }
}

#[test]
fn a_batch_gives_each_text_the_vector_it_gets_alone() {
    let encoder = shipped().unwrap();
    let texts = ["terminal multiplexer", "", "download a file with wget", "!!! ???"];
    let batch = encoder.embed(&texts, MAX_SEQUENCE);
    assert!(batch[1].is_none());
    for (text, got) in texts.iter().zip(&batch) {
        let alone = encoder.embed(&[text], MAX_SEQUENCE).remove(0);
        match (got, alone) {
            (Some(a), Some(b)) => assert!(a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-5), "{text:?}"),
            (a, b) => assert_eq!(a.is_some(), b.is_some(), "{text:?}"),
        }
    }
}

#[test]
fn damaged_files_are_refused_not_panicked_on() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../model/minilm-l6.rye-encoder");
    let bytes = std::fs::read(path).unwrap();
    // The header, the vocabulary and the first rows, cut at many lengths; then every byte of the
    // header set to extremes.
    for cut in (0..4096).chain((4096..bytes.len()).step_by(bytes.len() / 97)) {
        assert!(Encoder::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    for at in 8..44 {
        for value in [0u8, 0xFF] {
            let mut bad = bytes[..4096.min(bytes.len())].to_vec();
            bad[at] = value;
            assert!(Encoder::from_bytes(&bad).is_err());
        }
    }
}
