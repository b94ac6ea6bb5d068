/** rye-search — public Node API. */
// The declarations use Node's types (Buffer, KeyObject); this brings them to projects with `"types": []`.
/// <reference types="node" preserve="true" />
export {
  type FetchManyOptions,
  MAX_ITEM_IDS,
  openIndex,
  RyeIndex,
  type OpenIndexOptions,
  type VerifyReport,
} from './rye-index.js';
export type { ManyOptions, SearchFailure, StreamOptions } from './search-runner.js';
export type { ResultView } from './result-view.js';
export type { ReadyOptions, SemanticStatus } from './encoder-tier.js';
export { parseItemRef, InvalidIdError, type FetchOptions, type FetchResponse } from './fetch.js';
export { verifyItem } from './trust/verify-item.js';
export { createMemoryIndex, MemoryIndex, type PlainDocument, type MemorySearchOptions } from './memory-index.js';
export type { DistanceOption, SearchOptions } from './search-options.js';
export type { SortBy, TotalCount } from './wire.js';
export type { SearchResult, ShadowEntry, Source } from './result-fields.js';
export type { LazySearchResponse, SearchResponse } from './search-results.js';
export type { IndexReport, IndexWarning, Progress } from './indexer.js';
export type { Skip, SkipReason } from './discovery.js';
export { parseScope, KINDS, type Kind, type Scope } from './scope.js';
export { DEFAULT_BUNDLE, bundlesFromEnv, type SystemBundle, type Space } from './spaces.js';
export { TrustStore, verifyText, type Integrity, type Verification } from './trust/trust.js';
export * from './errors.js';
export { signText, trustFile, publicPem, rawPublicKey } from './trust/sign.js';
