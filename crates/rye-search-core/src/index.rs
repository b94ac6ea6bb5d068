//! Index lifecycle (persistent or in memory), write batches with one writer, the refresh
//! manifest, and search.

use std::cell::Cell;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::fs;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use tantivy::collector::Collector;
use tantivy::directory::error::LockError;
use tantivy::directory::MmapDirectory;
use tantivy::index::{IndexSettings, SegmentId};
use tantivy::query::{
    AllQuery, Bm25StatisticsProvider, BooleanQuery, ConstScoreQuery, EnableScoring, Occur, Query, RangeQuery,
    RegexQuery, TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption, Term};
use tantivy::snippet::SnippetGenerator;
use tantivy::store::Compressor;
use tantivy::InvertedIndexReader;
use tantivy::{DocId, Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, TantivyError};

use crate::all_terms::LazyAllTerms;
use crate::collect::{SortColumns, StoredIds, TopRanked};
use crate::document::{ItemDoc, ManifestEntry};
use crate::error::{contained, Error, Result};
use crate::hit_store::HitStore;
use crate::memory_dir::MemoryDirectory;
use crate::query::budget::Budget;
use crate::query::build::{is_term_leaf, positive_tokens, Builder};
use crate::query::parse;
use crate::request::{Filter, Hit, SearchRequest, SearchResponse};
use crate::schema::{self, version_number, Fields, SCHEMA_VERSION};
use crate::stored::{stored_texts, utf8};
use crate::tokenizer::{IdentTokenizer, TOKENIZER_NAME};

/// Largest page a request may ask for, and deepest offset (bounded memory per query).
pub const MAX_LIMIT: usize = 1000;
pub const MAX_OFFSET: usize = 100_000;

const VERSION_FILE: &str = "rye-search-schema";
const MB: usize = 1024 * 1024;
/// Up to this many documents, a batch gets a small writer and does not wait for merges.
const SMALL_BATCH_DOCS: usize = 256;
/// Up to this many documents, one indexing thread with room for all of them (a typical item
/// takes ~3 KB of indexing memory, which is only taken as it is used): one segment, so no merge.
const ONE_SEGMENT_DOCS: usize = 150_000;
const DOC_STORE_BLOCK_BYTES: usize = 2048;
/// How far apart the words of a plain query may be to earn the nearness bonus.
const NEARNESS_SLOP: u32 = 3;

/// What searches read of one segment besides its postings, opened once (opening the columns
/// costs more than a rare-term query).
struct SegmentParts {
    columns: Arc<SortColumns>,
    store: Arc<HitStore>,
    all_terms: LazyAllTerms,
}

pub struct SearchIndex {
    index: Index,
    reader: IndexReader,
    fields: Fields,
    location: Option<PathBuf>,
    /// What searches read of the segments searched lately; segments are immutable, so never stale.
    segments: Mutex<HashMap<SegmentId, Arc<SegmentParts>>>,
}

impl SearchIndex {
    /// Opens (or creates) a persistent index in `dir`. An index written by another schema
    /// version is discarded and recreated: it is a cache of the files, rebuilt by a refresh.
    pub fn open(dir: &Path) -> Result<Self> {
        fs::create_dir_all(dir)?;
        let version_path = dir.join(VERSION_FILE);
        let stored = fs::read_to_string(&version_path).unwrap_or_default();
        let has_index = dir.join("meta.json").exists();
        if has_index && stored.trim() != SCHEMA_VERSION.to_string() {
            clear_index_files(dir)?;
        }
        // A damaged index is rebuilt the same way: it is a cache of the files. A second failure
        // (e.g. a file that cannot be read at all) is reported, never a loop.
        // Tantivy's decoders assert on some damage instead of returning an error: a panic while
        // opening is damage too.
        let index = match contained(|| open_checked(dir)) {
            Ok(index) => index,
            Err(Error::Corrupt { .. } | Error::Internal(_)) => {
                clear_index_files(dir)?;
                contained(|| open_checked(dir))?
            }
            Err(e) => return Err(e),
        };
        if stored.trim() != SCHEMA_VERSION.to_string() || !has_index {
            fs::write(&version_path, SCHEMA_VERSION.to_string())?;
        }
        let (_, fields) = schema::build();
        Self::wrap(index, fields, Some(dir.to_path_buf()))
    }

    /// An index that lives only in memory (tests, ephemeral use, plain-document indexes).
    pub fn in_memory() -> Result<Self> {
        let (schema, fields) = schema::build();
        let index =
            Index::builder().schema(schema).settings(index_settings()).open_or_create(MemoryDirectory::default())?;
        Self::wrap(index, fields, None)
    }

    fn wrap(index: Index, fields: Fields, location: Option<PathBuf>) -> Result<Self> {
        index.tokenizers().register(TOKENIZER_NAME, IdentTokenizer);
        let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
        Ok(SearchIndex { index, reader, fields, location, segments: Mutex::default() })
    }

    /// Picks up commits made by other handles or processes.
    pub fn reload(&self) -> Result<()> {
        Ok(self.reader.reload()?)
    }

    /// Opstamp of the last commit on disk: changes whenever any process commits.
    pub fn opstamp(&self) -> Result<u64> {
        Ok(self.index.load_metas()?.opstamp)
    }

    pub fn num_docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// Segments in the current view (each costs a little per query).
    pub fn num_segments(&self) -> usize {
        self.reader.searcher().segment_readers().len()
    }

    /// Starts a write batch. Fails with `IndexLocked` while another writer holds the index.
    pub fn batch(&self) -> Result<Batch> {
        self.batch_for(usize::MAX)
    }

    /// A write batch sized for about `expected_docs` documents. A small edit gets a small writer
    /// and does not wait for background merges. A bulk batch that fits one segment is indexed on
    /// one thread while the caller prepares the next documents on its own: merging the segments
    /// of two indexing threads cost more than the second thread saved. Larger batches use two.
    pub fn batch_for(&self, expected_docs: usize) -> Result<Batch> {
        let small = expected_docs <= SMALL_BATCH_DOCS;
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        let (threads, memory) = match expected_docs {
            n if n <= SMALL_BATCH_DOCS => (1, 15 * MB),
            n if n <= ONE_SEGMENT_DOCS || cores == 1 => (1, 640 * MB),
            _ => (2, 512 * MB),
        };
        let writer = self.index.writer_with_num_threads(threads, memory).map_err(|e| match e {
            TantivyError::LockFailure(LockError::LockBusy, _) => Error::IndexLocked {
                path: self.location.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "memory".into()),
            },
            other => other.into(),
        })?;
        let bulk = if small { None } else { Some(self.index.searchable_segment_ids()?) };
        // The writer's lock is held, so the latest commit is what this batch writes over.
        self.reader.reload()?;
        let keys = KnownKeys::of(&self.reader.searcher(), self.fields.key)?;
        Ok(Batch { writer, fields: self.fields, reader: self.reader.clone(), bulk, keys })
    }

    /// What the index holds: key, mtime and size of every live document.
    pub fn manifest(&self) -> Result<Vec<ManifestEntry>> {
        let searcher = self.reader.searcher();
        let mut out = Vec::with_capacity(searcher.num_docs() as usize);
        for segment in searcher.segment_readers() {
            let ff = segment.fast_fields();
            let keys = column_strings(ff.str("key")?)?;
            let mtimes = ff.i64("mtime")?;
            let sizes = ff.u64("size")?;
            for doc in segment.doc_ids_alive() {
                out.push(ManifestEntry {
                    key: keys.of(doc),
                    mtime: mtimes.first(doc).unwrap_or(0),
                    size: sizes.first(doc).unwrap_or(0),
                });
            }
        }
        Ok(out)
    }

    pub fn search(&self, req: &SearchRequest) -> Result<SearchResponse> {
        if req.limit > MAX_LIMIT {
            return Err(Error::limit(
                format!("limit {} is above the maximum of {MAX_LIMIT}", req.limit),
                "page through results with offset",
            ));
        }
        if req.offset > MAX_OFFSET {
            return Err(Error::limit(
                format!("offset {} is above the maximum of {MAX_OFFSET}", req.offset),
                "narrow the query with scope, fields or filters",
            ));
        }
        let searcher = self.reader.searcher();
        let f = &self.fields;
        let weights = req.weights.as_array();
        let all_fields: Vec<(Field, f32)> =
            (0..5).filter(|&i| weights[i] > 0.0).map(|i| (f.text[i], weights[i])).collect();

        let node = parse(&req.query)?;
        let field_nodes = req
            .fields
            .iter()
            .map(|(name, text)| parse(text).map(|n| (name, text, n)).map_err(|e| in_field(name, e)))
            .collect::<Result<Vec<_>>>()?;
        let budget = Budget::for_query(std::iter::once(&node).chain(field_nodes.iter().map(|f| &f.2)), req.fuzzy > 0);
        let parts = self.segment_parts(&searcher)?;
        let all_terms = || parts.iter().map(|p| &p.all_terms).collect();
        let mut builder = Builder::new(&searcher, all_terms(), &req.query, req.fuzzy.min(2) as u8, &budget);
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        // `*` with `fields`: the field queries select and rank; matching everything adds only a
        // constant to every score (and would hide a lone field term from block-max WAND).
        if !matches!(node, parse::Node::All) || req.fields.is_empty() {
            clauses.push((Occur::Must, builder.build(&node, &all_fields)?));
        }
        let mut warnings = std::mem::take(&mut builder.warnings);
        if req.fuzzy > 2 {
            warnings.push(format!("fuzzy distance {} was clamped to 2", req.fuzzy));
        }
        if let Some(slop) = req.proximity {
            let mut tokens = Vec::new();
            positive_tokens(&node, &mut tokens);
            if tokens.len() >= 2 {
                clauses.push((Occur::Must, builder.sequence(&tokens, &all_fields, slop)));
            }
        } else if let Some(tokens) = plain_words(&node) {
            // Several plain words: documents that hold them close together, in one field, rank
            // above those that scatter them (known-item MRR@10 on the Debian set: 0.936 → 0.945).
            clauses.push((Occur::Should, builder.sequence(&tokens, &all_fields, NEARNESS_SLOP)));
        }
        for (name, text, sub) in &field_nodes {
            let Some((i, field)) = f.text_field(name) else {
                return Err(Error::invalid(
                    format!("unknown field \"{name}\" in fields"),
                    format!("use one of {}", schema::TEXT_FIELDS.join(", ")),
                ));
            };
            let mut fb = Builder::new(&searcher, all_terms(), text, req.fuzzy.min(2) as u8, &budget);
            clauses.push((Occur::Must, fb.build(sub, &[(field, weights[i].max(0.1))]).map_err(|e| in_field(name, e))?));
            warnings.append(&mut fb.warnings);
        }
        for (occur, q) in self.restrictions(&searcher, req)? {
            let q: Box<dyn Query> = if occur == Occur::Must { Box::new(ConstScoreQuery::new(q, 0.0)) } else { q };
            clauses.push((occur, q));
        }
        // A lone clause runs as itself: wrapping it would hide a plain union from block-max WAND.
        let query: Box<dyn Query> = if clauses.len() == 1 {
            clauses.pop().expect("one clause").1
        } else {
            Box::new(BooleanQuery::new(clauses))
        };

        let collector = TopRanked {
            sort: req.sort_by,
            wanted: req.offset + req.limit,
            prune: false, // decided by `collect` once the query's postings are known
            columns: parts.iter().map(|p| p.columns.clone()).collect(),
        };
        let found = collect(&searcher, &*query, collector)?;
        let total = found.seen as usize;
        let best = found.best;
        let page: Vec<(f32, Hit)> = found
            .top
            .iter()
            .skip(req.offset)
            .map(|r| {
                Ok((
                    r.score,
                    self.materialise(&parts[r.address.segment_ord as usize], r.address.doc_id, req.preview_chars > 0)?,
                ))
            })
            .collect::<Result<_>>()?;

        let snippets = if req.preview_chars > 0 && !page.is_empty() {
            let mut g = SnippetGenerator::create(&searcher, &*query, f.content())?;
            g.set_max_num_chars(req.preview_chars);
            let mut terms = Vec::new();
            query.query_terms(&mut |term, _| {
                if term.field() == f.content() {
                    if let Some(text) = term.value().as_str() {
                        terms.push(text.to_string());
                    }
                }
            });
            Some((g, terms))
        } else {
            None
        };
        let mut hits = Vec::with_capacity(page.len());
        for (raw, mut hit) in page {
            hit.score = normalise(raw, best);
            hit.preview = match &snippets {
                Some((g, terms)) => preview(g, terms, &hit.preview, req.preview_chars),
                None => String::new(),
            };
            hits.push(hit);
        }
        Ok(SearchResponse { total, hits, warnings })
    }

    /// Runs many searches on all cores; each result stands on its own.
    pub fn search_many(&self, reqs: &[SearchRequest]) -> Vec<Result<SearchResponse>> {
        self.search_many_with(reqs, |r| r)
    }

    /// Like [`Self::search_many`], with `each` applied on the searching thread (e.g. to serialise
    /// the response there instead of afterwards on one thread).
    pub fn search_many_with<T: Send>(
        &self,
        reqs: &[SearchRequest],
        each: impl Fn(Result<SearchResponse>) -> T + Sync,
    ) -> Vec<T> {
        // Rayon's pool: threads (and their allocator caches) live across calls, and a thread
        // that drew cheap queries takes work from one that drew expensive ones.
        // A panic in one query answers that query with `Internal`; the others still run.
        reqs.par_iter().with_min_len(8).map(|r| each(contained(|| self.search(r)))).collect()
    }

    /// What searches read of each segment of `searcher`, opened on first use.
    fn segment_parts(&self, searcher: &tantivy::Searcher) -> Result<Vec<Arc<SegmentParts>>> {
        let mut cache = self.segments.lock().unwrap_or_else(|e| e.into_inner());
        let segments = searcher.segment_readers();
        if segments.iter().any(|s| !cache.contains_key(&s.segment_id())) {
            cache.retain(|id, _| segments.iter().any(|s| s.segment_id() == *id));
            for s in segments {
                if let Entry::Vacant(slot) = cache.entry(s.segment_id()) {
                    let store = Arc::new(HitStore::open(&self.index, s)?);
                    let stored_ids = StoredIds { store: store.clone(), id_field: self.fields.id.field_id() };
                    slot.insert(Arc::new(SegmentParts {
                        columns: Arc::new(SortColumns::open(s, Some(stored_ids))?),
                        store,
                        all_terms: LazyAllTerms::new(&self.fields.text),
                    }));
                }
            }
        }
        Ok(segments.iter().map(|s| cache[&s.segment_id()].clone()).collect())
    }

    /// Kind, scope, spaces and filters: clauses that restrict but do not score.
    fn restrictions(&self, searcher: &tantivy::Searcher, req: &SearchRequest) -> Result<Vec<(Occur, Box<dyn Query>)>> {
        let f = &self.fields;
        let mut out: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let max_doc: u64 = searcher.segment_readers().iter().map(|s| s.max_doc() as u64).sum();
        // A restriction every document satisfies only slows the intersection down: leave it out.
        let covers_all = |field: Field, values: &[&str]| -> Result<bool> {
            let mut n = 0u64;
            for v in values {
                n += searcher.doc_freq(&Term::from_field_text(field, v))?;
            }
            Ok(n >= max_doc)
        };
        if let Some(kind) = &req.kind {
            if !covers_all(f.kind, &[kind])? {
                out.push((Occur::Must, raw_term(f.kind, kind)));
            }
        }
        if let Some(pattern) = &req.id_pattern {
            let q = RegexQuery::from_pattern(pattern, f.id)
                .map_err(|e| Error::invalid(format!("invalid scope pattern: {e}"), "check the scope"))?;
            out.push((Occur::Must, Box::new(q)));
        }
        if let Some(ns) = &req.namespace {
            let under = raw_term(f.namespace, ns);
            let q = if req.namespace_exact {
                Box::new(BooleanQuery::new(vec![(Occur::Should, under), (Occur::Should, raw_term(f.id, ns))]))
                    as Box<dyn Query>
            } else {
                under
            };
            out.push((Occur::Must, q));
        }
        let spaces: Vec<&str> = req.spaces.iter().map(String::as_str).collect();
        if !spaces.is_empty() && !covers_all(f.space, &spaces)? {
            out.push((Occur::Must, any_raw(f.space, spaces.into_iter())));
        }
        for filter in &req.filters {
            out.push(self.filter(filter)?);
        }
        Ok(out)
    }

    fn filter(&self, filter: &Filter) -> Result<(Occur, Box<dyn Query>)> {
        let f = &self.fields;
        Ok(match filter {
            Filter::AnyOf { key, values } | Filter::NoneOf { key, values } => {
                let facets: Vec<String> = values.iter().map(|v| meta_facet(key, v)).collect();
                let q = any_raw(f.meta, facets.iter().map(String::as_str));
                let occur = if matches!(filter, Filter::AnyOf { .. }) { Occur::Must } else { Occur::MustNot };
                (occur, q)
            }
            Filter::Version { op, value } => {
                let v = version_number(value).ok_or_else(|| {
                    Error::invalid(
                        format!("version filter \"{value}\" is not a version"),
                        "use numbers like 1.2 or 1.2.0, e.g. \">=1.2\"",
                    )
                })?;
                let t = |x: u64| Term::from_field_u64(f.version_num, x);
                let q: Box<dyn Query> = match op.as_str() {
                    "=" => Box::new(TermQuery::new(t(v), IndexRecordOption::Basic)),
                    ">=" => Box::new(RangeQuery::new(Bound::Included(t(v)), Bound::Unbounded)),
                    ">" => Box::new(RangeQuery::new(Bound::Excluded(t(v)), Bound::Unbounded)),
                    "<=" => Box::new(RangeQuery::new(Bound::Unbounded, Bound::Included(t(v)))),
                    "<" => Box::new(RangeQuery::new(Bound::Unbounded, Bound::Excluded(t(v)))),
                    other => {
                        return Err(Error::invalid(
                            format!("unknown version operator \"{other}\""),
                            "use =, >=, >, <= or <",
                        ))
                    }
                };
                (Occur::Must, q)
            }
            Filter::Date { from, to } => {
                let t = |x: i64| Term::from_field_i64(f.date, x);
                let lower = from.map(|x| Bound::Included(t(x))).unwrap_or(Bound::Unbounded);
                let upper = to.map(|x| Bound::Included(t(x))).unwrap_or(Bound::Unbounded);
                let q: Box<dyn Query> = if from.is_none() && to.is_none() {
                    Box::new(AllQuery)
                } else {
                    Box::new(RangeQuery::new(lower, upper))
                };
                (Occur::Must, q)
            }
        })
    }

    /// Loads the stored fields of one hit from the doc store (only the page is loaded); the
    /// content, only when a preview is wanted.
    fn materialise(&self, segment: &SegmentParts, doc: DocId, with_content: bool) -> Result<Hit> {
        let bytes = segment.store.document(doc)?;
        let f = &self.fields;
        let mut hit = Hit::default();
        // Stored in this order: id, item, content.
        for value in stored_texts(&bytes) {
            let (field, text) = value?;
            if field == f.id.field_id() {
                hit.id = utf8(text)?;
            } else if field == f.item.field_id() {
                hit.item = utf8(text)?;
                if !with_content {
                    break;
                }
            } else if field == f.content().field_id() {
                hit.preview = utf8(text)?;
                break;
            }
        }
        Ok(hit)
    }
}

/// Runs the collector; segments where it skipped documents are counted again, unscored.
fn collect(
    searcher: &tantivy::Searcher,
    query: &dyn Query,
    mut collector: TopRanked,
) -> Result<crate::collect::Collected> {
    let tally = PostingsTally { searcher, postings: Cell::new(0) };
    let weight = query.weight(EnableScoring::enabled_from_statistics_provider(&tally, searcher))?;
    let postings = tally.postings.get();
    collector.prune =
        is_term_union(query) && (postings < 2 * collector.wanted as u64 || postings >= PRUNE_MIN_POSTINGS);
    let segments = searcher.segment_readers();
    let fruits: Vec<_> = segments
        .iter()
        .enumerate()
        .map(|(ord, reader)| collector.collect_segment(&*weight, ord as u32, reader))
        .collect::<tantivy::Result<_>>()?;
    let mut found = collector.merge_fruits(fruits)?;
    if !found.pruned.is_empty() {
        let counter = query.weight(EnableScoring::disabled_from_searcher(searcher))?;
        for &(ord, visited) in &found.pruned {
            found.seen = found.seen - visited + counter.count(&segments[ord as usize])? as u64;
        }
    }
    Ok(found)
}

/// Block-max WAND skips documents that cannot reach the page, but once it has skipped any, a
/// second pass must count the matches. From `2 × wanted` postings (before that it never skips)
/// up to this many, scoring every match and counting on the way is cheaper (callgrind, c60k:
/// terms in 50–500 documents 13% fewer instructions; in 1,000–2,000 documents, 9% more).
const PRUNE_MIN_POSTINGS: u64 = 1500;

/// The searcher's statistics, adding up the document frequencies that scoring asks for: the
/// postings a term union will walk, known without looking its terms up again.
struct PostingsTally<'a> {
    searcher: &'a tantivy::Searcher,
    postings: Cell<u64>,
}

impl Bm25StatisticsProvider for PostingsTally<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        self.searcher.total_num_tokens(field)
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        self.searcher.total_num_docs()
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        let n = self.searcher.doc_freq(term)?;
        self.postings.set(self.postings.get() + n);
        Ok(n)
    }
}

/// Whether `query` is a term query or a union of (boosted) term queries: the shape Tantivy
/// scores with block-max WAND.
fn is_term_union(query: &dyn Query) -> bool {
    match query.downcast_ref::<BooleanQuery>() {
        Some(union) => {
            !union.clauses().is_empty()
                && union.clauses().iter().all(|(occur, q)| *occur == Occur::Should && is_term_leaf(&**q))
        }
        None => is_term_leaf(query),
    }
}

/// The words of a query made only of plain terms joined by AND (at least two words).
fn plain_words(node: &parse::Node) -> Option<Vec<String>> {
    let parse::Node::And(children) = node else { return None };
    if !children.iter().all(|c| matches!(c, parse::Node::Term(_))) {
        return None;
    }
    let mut tokens = Vec::new();
    positive_tokens(node, &mut tokens);
    (tokens.len() >= 2).then_some(tokens)
}

fn in_field(name: &str, e: Error) -> Error {
    match e {
        Error::QuerySyntax { message, position, hint } => {
            Error::QuerySyntax { message: format!("in fields.{name}: {message}"), position, hint }
        }
        other => other,
    }
}

fn normalise(raw: f32, best: f32) -> f64 {
    let s = if best > 0.0 { (raw / best).clamp(0.0, 1.0) as f64 } else { 1.0 };
    (s * 10_000.0).round() / 10_000.0
}

/// Snippet around the first matched term. Only a window of the text is tokenized: documents
/// can be long, and tokenizing each hit whole cost milliseconds per query.
fn preview(g: &SnippetGenerator, terms: &[String], content: &str, chars: usize) -> String {
    let window = preview_window(content, terms.iter().map(String::as_str), chars);
    let snippet = g.snippet(window);
    let text = if snippet.fragment().trim().is_empty() { window } else { snippet.fragment() };
    let collapsed: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    collapsed.chars().take(chars).collect()
}

/// The part of `content` around the earliest occurrence of any term (ASCII case-insensitive,
/// which keeps byte offsets exact), or its beginning.
fn preview_window<'a>(content: &'a str, terms: impl Iterator<Item = &'a str>, chars: usize) -> &'a str {
    let span = (chars * 8).max(1024);
    if content.len() <= span {
        return content;
    }
    let lower = content.to_ascii_lowercase();
    let first = terms.filter(|t| !t.is_empty()).filter_map(|t| lower.find(t)).min().unwrap_or(0);
    let floor = |mut i: usize| {
        while !content.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = floor(first.saturating_sub(span / 4));
    let end = floor((start + span).min(content.len()));
    &content[start..end]
}

fn raw_term(field: Field, value: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(Term::from_field_text(field, value), IndexRecordOption::Basic))
}

fn any_raw<'a>(field: Field, values: impl Iterator<Item = &'a str>) -> Box<dyn Query> {
    let clauses: Vec<(Occur, Box<dyn Query>)> = values.map(|v| (Occur::Should, raw_term(field, v))).collect();
    Box::new(BooleanQuery::new(clauses))
}

/// Facet term for exact, case-insensitive metadata filters.
pub fn meta_facet(key: &str, value: &str) -> String {
    format!("{}={}", key.trim().to_lowercase(), value.trim().to_lowercase())
}

/// Small, uncompressed doc store blocks: a search loads each hit of the page from its own
/// block, and decompressing a 16 KiB LZ4 block per hit (Tantivy's default) was the largest cost
/// of queries whose hits were not cached. The store grows; queries get cheaper.
fn index_settings() -> IndexSettings {
    IndexSettings {
        docstore_blocksize: DOC_STORE_BLOCK_BYTES,
        docstore_compression: Compressor::None,
        // Nothing to compress: handing each small block to another thread only cost wake-ups.
        docstore_compress_dedicated_thread: false,
    }
}

/// Opens or creates the index in `dir` and checks every file of its segments against its
/// checksum (a few tens of milliseconds for a 60k-item index): a truncated or flipped file must
/// be found here, not by a decoder that trusts a damaged length.
fn open_checked(dir: &Path) -> Result<Index> {
    let (schema, _) = schema::build();
    let corrupt = |detail: String| Error::Corrupt { path: dir.display().to_string(), detail };
    let directory = MmapDirectory::open(dir).map_err(TantivyError::from)?;
    let index = match Index::builder().schema(schema).settings(index_settings()).open_or_create(directory) {
        Ok(index) => index,
        Err(e @ (TantivyError::IoError(_) | TantivyError::OpenDirectoryError(_))) => return Err(e.into()),
        Err(e) => return Err(corrupt(e.to_string())),
    };
    match index.validate_checksum() {
        Ok(damaged) if damaged.is_empty() => Ok(index),
        Ok(damaged) => Err(corrupt(format!("{} file(s) fail their checksum", damaged.len()))),
        Err(e) => Err(corrupt(e.to_string())),
    }
}

fn clear_index_files(dir: &Path) -> Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_file() {
            fs::remove_file(path)?;
        }
    }
    Ok(())
}

/// One write session. Nothing is visible to readers until `commit`; dropping it discards.
pub struct Batch {
    writer: IndexWriter<TantivyDocument>,
    fields: Fields,
    reader: IndexReader,
    /// For a bulk batch: the segments that existed before it.
    bulk: Option<Vec<SegmentId>>,
    keys: KnownKeys,
}

/// Which keys an upsert must delete first: those in the index when the batch began and those
/// added earlier in the batch. A delete of a key that is nowhere is not free (Tantivy looks
/// every deleted term up when it writes a segment): skipping them made a fresh build of 63,666
/// items ~30% faster and ~60 MB lighter.
struct KnownKeys {
    committed: Vec<Arc<InvertedIndexReader>>,
    added: HashSet<String>,
}

impl KnownKeys {
    fn of(searcher: &tantivy::Searcher, key: Field) -> Result<Self> {
        let committed =
            searcher.segment_readers().iter().map(|r| r.inverted_index(key)).collect::<tantivy::Result<_>>()?;
        Ok(KnownKeys { committed, added: HashSet::new() })
    }

    /// Records `key` as added; true when a document with it may already exist.
    fn add(&mut self, key: &str) -> Result<bool> {
        if !self.added.insert(key.to_owned()) {
            return Ok(true);
        }
        for segment in &self.committed {
            if segment.terms().get(key.as_bytes())?.is_some() {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

impl Batch {
    /// Adds documents, replacing any with the same key.
    pub fn upsert(&mut self, docs: &[ItemDoc]) -> Result<()> {
        for d in docs {
            if self.keys.add(&d.key)? {
                self.writer.delete_term(Term::from_field_text(self.fields.key, &d.key));
            }
            self.writer.add_document(to_document(&self.fields, d))?;
        }
        Ok(())
    }

    pub fn delete(&mut self, keys: &[String]) {
        for k in keys {
            self.writer.delete_term(Term::from_field_text(self.fields.key, k));
        }
    }

    /// Commits atomically and makes the result visible to this index's readers. Bulk batches
    /// also wait for the merges they trigger, so a fresh index is compact.
    pub fn commit(mut self) -> Result<()> {
        self.writer.commit()?;
        self.reader.reload()?;
        if let Some(before) = &self.bulk {
            // What a bulk batch wrote becomes one segment: every query pays per segment (term
            // lookups, scorers). Older segments are left to the merge policy, so adding in
            // chunks does not re-merge everything each time.
            let written: Vec<SegmentId> =
                self.writer.index().searchable_segment_ids()?.into_iter().filter(|id| !before.contains(id)).collect();
            if written.len() > 1 {
                self.writer.merge(&written).wait()?;
            }
            self.writer.wait_merging_threads()?;
            self.reader.reload()?;
        }
        Ok(())
    }
}

/// A string column's values by document, its dictionary decoded once in order: looking each
/// ordinal up decodes a dictionary block up to it, which made the manifest of 60k items take
/// ~200 ms.
struct ColumnStrings {
    ords: Option<tantivy::columnar::Column<u64>>,
    by_ord: Vec<String>,
}

impl ColumnStrings {
    fn of(&self, doc: DocId) -> String {
        let ord = self.ords.as_ref().and_then(|c| c.first(doc));
        ord.and_then(|o| self.by_ord.get(o as usize)).cloned().unwrap_or_default()
    }
}

fn column_strings(column: Option<tantivy::columnar::StrColumn>) -> Result<ColumnStrings> {
    let Some(column) = column else { return Ok(ColumnStrings { ords: None, by_ord: Vec::new() }) };
    let mut by_ord = Vec::with_capacity(column.num_terms());
    let mut terms = column.dictionary().stream()?;
    while terms.advance() {
        by_ord.push(utf8(terms.key())?);
    }
    Ok(ColumnStrings { ords: Some(column.ords().clone()), by_ord })
}

/// What a hit shows besides id, score and preview, as a JSON array in the order of
/// [`crate::request::ITEM_FIELDS`] (and of `NativeItem` in `ts/search.ts`): an array because
/// `JSON.parse` builds arrays several times faster than objects with keys. `extra` is copied
/// as the caller wrote it (it arrives as JSON, parsed once).
fn stored_item(d: &ItemDoc) -> String {
    let extra = d.extra.as_deref();
    let item = (&d.kind, &d.space, &d.name, &d.title, &d.description, &d.category, &d.path, d.date, extra);
    serde_json::to_string(&item).expect("a tuple of strings serialises")
}

fn to_document(f: &Fields, d: &ItemDoc) -> TantivyDocument {
    let mut doc = TantivyDocument::default();
    // Stored values are read in the order they are added: id, item, then content (read only for
    // previews).
    doc.add_text(f.id, &d.id);
    for (field, value) in f.text.iter().zip([&d.title, &d.name, &d.description, &d.category]) {
        doc.add_text(*field, value);
    }
    doc.add_text(f.key, &d.key);
    doc.add_text(f.kind, &d.kind);
    doc.add_text(f.space, &d.space);
    doc.add_u64(f.space_rank, d.space_rank);
    doc.add_text(f.name_sort, d.name.to_lowercase());
    let mut ancestor = d.id.as_str();
    while let Some(cut) = ancestor.rfind('/') {
        ancestor = &ancestor[..cut];
        doc.add_text(f.namespace, ancestor);
    }
    for (key, values) in &d.meta {
        for v in values {
            doc.add_text(f.meta, meta_facet(key, v));
        }
    }
    if let Some(v) = d.version.as_deref().and_then(version_number) {
        doc.add_u64(f.version_num, v);
    }
    if let Some(date) = d.date {
        doc.add_i64(f.date, date);
    }
    doc.add_i64(f.mtime, d.mtime);
    doc.add_u64(f.size, d.size);
    doc.add_text(f.item, stored_item(d));
    // Stored last, so hits without a preview stop reading before it.
    doc.add_text(f.content(), &d.content);
    doc
}
