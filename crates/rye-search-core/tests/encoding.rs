//! Encoding in the background with the sentence encoder the package ships: searches answer with
//! the static model at once, then with the encoder once every item has its vector; vectors are
//! kept with an index on disk; a damaged encoder leaves the static tier answering.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rye_search_core::semantic::{load_model, use_encoder};
use rye_search_core::{EncodingStatus, ItemDoc, Mode, SearchIndex, SearchRequest};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

fn doc(id: &str, title: &str, description: &str) -> ItemDoc {
    serde_json::from_value(serde_json::json!({
        "key": format!("tool\u{0}project\u{0}{id}"), "id": id, "kind": "tool", "space": "project",
        "name": id, "title": title, "description": description, "content": description,
    }))
    .unwrap()
}

fn items() -> Vec<ItemDoc> {
    vec![
        doc("tmux", "terminal multiplexer", "switch between programs in one terminal, detach them and reattach later"),
        doc("gzip", "GNU compression utility", "reduces the size of files"),
        doc("wget", "retrieves files from the web", "non-interactive network downloader over HTTP, HTTPS and FTP"),
        doc("cowsay", "configurable talking cow", "prints a picture of a cow saying a message"),
    ]
}

fn add(index: &SearchIndex, docs: &[ItemDoc]) {
    let mut batch = index.batch().unwrap();
    batch.upsert(docs).unwrap();
    batch.commit().unwrap();
}

/// Waits (at most a minute) until the background encoding reports `state`.
#[track_caller]
fn wait_for(index: &SearchIndex, state: &str) -> EncodingStatus {
    let start = Instant::now();
    loop {
        let status = index.encoding_status().expect("encoding was started");
        if status.state == state || start.elapsed() > Duration::from_secs(60) {
            assert_eq!(status.state, state, "{status:?}");
            return status;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn question(index: &SearchIndex, query: &str) -> rye_search_core::SearchResponse {
    index.search(&SearchRequest { query: query.into(), mode: Mode::Hybrid, ..Default::default() }).unwrap()
}

// One test: the encoder is set per process, and each step below sets it differently.
#[test]
fn the_encoder_tier_settles_is_kept_and_gives_way_when_it_cannot_load() {
    load_model(&repo("model/minilm-static-256.rye-embed")).unwrap();
    use_encoder(Some(&repo("model/minilm-l6.rye-encoder")));

    // In memory: settles, then answers with the encoder's vectors.
    let index = Arc::new(SearchIndex::in_memory().unwrap());
    add(&index, &items());
    index.encode_in_background(2);
    let settled = wait_for(&index, "settled");
    assert_eq!((settled.encoded, settled.total), (4, 4));
    let res = question(&index, "download something from a website");
    assert_eq!((res.search_type, res.vectors), ("hybrid", Some("encoder")));
    assert_eq!(res.hits[0].id, "wget", "{:?}", res.hits.iter().map(|h| &h.id).collect::<Vec<_>>());
    let keyword = index.search(&SearchRequest { query: "cow".into(), ..Default::default() }).unwrap();
    assert_eq!(keyword.vectors, None);

    // A new item: the static tier answers until it has its vector too.
    add(&index, &[doc("screen", "screen manager with terminal emulation", "keeps sessions alive after logout")]);
    index.reload().unwrap();
    let settled = wait_for(&index, "settled");
    assert_eq!((settled.encoded, settled.total), (5, 5));
    assert_eq!(question(&index, "keep my shell alive when ssh drops").vectors, Some("encoder"));

    // Made, then filled at once: the encoder is not read until the adds pause (read beside them,
    // it added ~33 MB to a c60k build's peak), then the index settles.
    let filling = Arc::new(SearchIndex::in_memory().unwrap());
    filling.encode_in_background(1);
    for round in 0..8 {
        add(&filling, &[doc(&format!("item{round}"), "terminal multiplexer", "detach and reattach later")]);
        assert_eq!(filling.encoding_status().unwrap().state, "loading", "round {round}");
        std::thread::sleep(Duration::from_millis(40));
    }
    assert_eq!(wait_for(&filling, "settled").encoded, 8);
    // Made and left empty: it settles with nothing to encode (nothing waits forever).
    let empty = Arc::new(SearchIndex::in_memory().unwrap());
    empty.encode_in_background(1);
    assert_eq!(wait_for(&empty, "settled").total, 0);

    // On disk: the vectors are kept, and a new process's index settles without encoding again.
    let dir = std::env::temp_dir().join(format!("rye-encoding-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    {
        let index = Arc::new(SearchIndex::open(&dir).unwrap());
        add(&index, &items());
        index.encode_in_background(1);
        wait_for(&index, "settled");
    }
    let file = dir.join(rye_search_core::semantic::encoded::ENCODED_FILE);
    let kept = std::fs::metadata(&file).unwrap().len();
    let reopened = Arc::new(SearchIndex::open(&dir).unwrap());
    reopened.encode_in_background(1);
    assert_eq!(wait_for(&reopened, "settled").encoded, 4);
    assert_eq!(std::fs::metadata(&file).unwrap().len(), kept, "nothing encoded again");
    assert_eq!(question(&reopened, "download something from a website").vectors, Some("encoder"));
    drop(reopened);
    let _ = std::fs::remove_dir_all(&dir);

    // A damaged encoder: the static tier answers, and the status says why.
    let damaged = std::env::temp_dir().join(format!("rye-encoder-damaged-{}", std::process::id()));
    std::fs::write(&damaged, b"RYEENC01 not really").unwrap();
    use_encoder(Some(&damaged));
    let index = Arc::new(SearchIndex::in_memory().unwrap());
    add(&index, &items());
    index.encode_in_background(2);
    let off = wait_for(&index, "off");
    assert!(off.error.unwrap().contains("not usable"));
    assert_eq!(question(&index, "download something from a website").vectors, Some("static"));
    let _ = std::fs::remove_file(damaged);
    use_encoder(None);
    let index = Arc::new(SearchIndex::in_memory().unwrap());
    index.encode_in_background(1);
    assert!(wait_for(&index, "off").error.unwrap().contains("RYE_SEARCH_ENCODER=off"));
}
