/**
 * Scopes: `tool`, `tool.rye.core.*`, `rye.search.tool.rye.core.*`, `rye.fetch.…`, `rye.*.…`.
 * Namespaces are segment-aware: `tool.rye.core.*` is everything under `rye/core/`, never
 * `rye/core_utils/…`; a scope without `*` names one item or one namespace exactly.
 */
import { InvalidScopeError, shown } from './errors.js';
import { loneSurrogateAt, WELL_FORMED_HINT } from './validate.js';

export const KINDS = ['directive', 'tool', 'knowledge'] as const;
export type Kind = (typeof KINDS)[number];

export interface Scope {
  kind: Kind;
  /** The namespace as written, `/`-separated (`rye/core`), or '' for the whole kind. */
  namespace: string;
  /** Regex matched against whole item ids, when the namespace has `*` inside a segment. */
  idPattern?: string;
  /** True when the scope ends in `.*`: items under the namespace only, not an item named like it. */
  under?: boolean;
}

const ACCEPTED =
  'use * (every kind), KIND, KIND.NAMESPACE, KIND.NAMESPACE.* or rye.search.KIND.NAMESPACE.* (also rye.fetch.… and rye.*.…), ' +
  'where KIND is directive, tool or knowledge — e.g. "tool", "tool.rye.core.*", "rye.search.knowledge.*"';

function fail(scope: unknown, why: string, hint = ACCEPTED): never {
  throw new InvalidScopeError(`invalid scope ${shown(scope)}: ${why}`, { hint });
}

export function isKind(value: unknown): value is Kind {
  return typeof value === 'string' && (KINDS as readonly string[]).includes(value);
}

/** Scopes that name every kind. */
const EVERY_KIND = new Set(['*']);

/** A scope's meaning; `undefined` for `*` (every kind). */
export function parseScope(scope: unknown): Scope | undefined {
  if (typeof scope !== 'string') fail(scope, 'scope must be a string');
  const lone = loneSurrogateAt(scope);
  if (lone >= 0) fail(scope, `an unpaired UTF-16 surrogate at position ${lone}`, WELL_FORMED_HINT);
  const text = scope.trim();
  if (text === '') fail(scope, 'scope is empty');
  if (EVERY_KIND.has(text)) return undefined;
  let rest = text;
  if (rest.startsWith('rye.')) {
    rest = rest.slice(4);
    const dot = rest.indexOf('.');
    const primary = dot < 0 ? rest : rest.slice(0, dot);
    if (!['search', 'fetch', '*'].includes(primary)) fail(scope, `unknown capability ${shown(`rye.${primary}`)}`);
    if (dot < 0) fail(scope, 'no kind after the capability');
    rest = rest.slice(dot + 1);
  }
  const dot = rest.indexOf('.');
  const kind = dot < 0 ? rest : rest.slice(0, dot);
  const specifics = dot < 0 ? '' : rest.slice(dot + 1);
  if (!isKind(kind)) {
    const guess = KINDS.find((k) => kind.toLowerCase().replace(/s$/, '') === k);
    fail(scope, `unknown kind ${shown(kind)}${guess ? ` (did you mean "${guess}"?)` : ''}`);
  }
  if (specifics === '' || specifics === '*') return { kind, namespace: '' };

  let body = specifics;
  let under = false;
  if (body.endsWith('.*') || body.endsWith('/*')) {
    under = true;
    body = body.slice(0, -2);
  }
  const segments = body.split(/[./]/);
  if (segments.some((s) => s === '')) fail(scope, 'empty namespace segment');
  if (segments.some((s) => s === '..' || s.includes('\0'))) fail(scope, 'invalid namespace segment');
  // A `*` ends a scope (`tool.rye.core.*`, `tool.rye.co*`); one before other segments is a form
  // users expect to mean something it never did, so it is refused rather than matching nothing.
  if (segments.slice(0, -1).some((s) => s.includes('*'))) fail(scope, 'a * may only stand in the last segment');
  const namespace = segments.join('/');
  if (!namespace.includes('*')) return { kind, namespace, under };
  const pattern = segments.map((s) => s.split('*').map(escapeRegex).join('[^/]*')).join('/');
  return { kind, namespace, under, idPattern: under ? `${pattern}/.+` : `${pattern}(/.+)?` };
}

function escapeRegex(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$#&~-]/g, '\\$&');
}

/** Most scopes one search may name. */
export const MAX_SCOPES = 20;

/**
 * A scope or a list of them (`["directive", "knowledge.rye.*"]`), each in the grammar above;
 * any `*` in it means every kind; an empty list is refused (it names nothing to search).
 */
export function parseScopes(scope: unknown): Scope[] {
  if (!Array.isArray(scope)) {
    const one = parseScope(scope);
    return one ? [one] : [];
  }
  if (scope.length === 0 || scope.length > MAX_SCOPES)
    fail(
      scope,
      `a list of scopes has 1 to ${MAX_SCOPES} entries, this one ${scope.length}`,
      `name at most ${MAX_SCOPES} scopes, or one that covers them (e.g. "knowledge.rye.*" or "*")`,
    );
  const parsed = scope.map(parseScope);
  return parsed.some((s) => s === undefined) ? [] : (parsed as Scope[]);
}
