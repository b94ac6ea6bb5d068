//! The index through its public API, by feature: the query language, ranking, answers, and
//! the index over time. Shared fixtures here.

use std::collections::BTreeMap;

use rye_search_core::wire::Count;
use rye_search_core::{Error, Filter, ItemDoc, LikeRef, Scope, SearchIndex, SearchRequest, SortBy};

mod answers;
mod lifecycle;
mod query_language;
mod ranking;

fn doc(id: &str, space: &str, title: &str, description: &str, content: &str) -> ItemDoc {
    let name = id.rsplit('/').next().unwrap().to_string();
    ItemDoc {
        key: format!("{space}:{id}"),
        id: id.into(),
        kind: "tool".into(),
        space: space.into(),
        space_rank: match space {
            "project" => 0,
            "user" => 1,
            _ => 2,
        },
        title: title.into(),
        name,
        description: description.into(),
        content: content.into(),
        ..Default::default()
    }
}

fn index(docs: &[ItemDoc]) -> SearchIndex {
    let index = SearchIndex::in_memory().unwrap();
    let mut batch = index.batch().unwrap();
    batch.upsert(docs).unwrap();
    batch.commit().unwrap();
    index
}

fn ids(index: &SearchIndex, req: SearchRequest) -> Vec<String> {
    index.search(&req).unwrap().hits.into_iter().map(|h| h.id).collect()
}

fn q(query: &str) -> SearchRequest {
    SearchRequest { query: query.into(), ..Default::default() }
}

fn corpus() -> Vec<ItemDoc> {
    vec![
        doc("rye/core/create_tool", "project", "create_tool", "Create a new tool", "Makes a tool from a template"),
        doc(
            "rye/file-system/read",
            "system:core",
            "read",
            "Read file contents",
            "Read the contents of a file at the given path",
        ),
        doc("rye/web/websearch", "system:core", "websearch", "Search the web", "Queries a search engine"),
        doc(
            "rye/agent/threads",
            "user",
            "threads",
            "Run multithreaded agents",
            "thread one two three four orchestrator",
        ),
        doc("rye/core_utils/fileSystem", "project", "fileSystem", "Helpers", "temporary files and directories"),
    ]
}
