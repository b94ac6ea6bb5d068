/**
 * Items as MCP resources: `rye://{kind}/{id}` reads an item as `rye_fetch` loads it (signature
 * checked, project → user → system), search answers link their results to it, and clients
 * complete the template's arguments (kinds; item ids from the index by prefix).
 */
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError, type ReadResourceResult, type ResourceLink } from '@modelcontextprotocol/sdk/types.js';

import { echo, errorPayload, InvalidArgumentError, shown } from '../errors.js';
import type { FetchResponse } from '../fetch.js';
import { isKind, KINDS } from '../scope.js';
import type { SearchResult } from '../result-fields.js';
import { spaceLabel } from '../spaces.js';
import type { McpContext } from './context.js';

/** `+`: the id keeps its slashes (RFC 6570 reserved expansion). */
export const ITEM_URI_TEMPLATE = 'rye://{kind}/{+id}';

/** JSON-RPC error codes of a failed read: the MCP spec's "resource not found", else bad params. */
const RESOURCE_NOT_FOUND = -32002;
const INVALID_PARAMS = -32602;

const MIME_TYPES: Record<string, string> = {
  '.md': 'text/markdown',
  '.py': 'text/x-python',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.json': 'application/json',
  '.toml': 'application/toml',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.cjs': 'text/javascript',
  '.ts': 'text/typescript',
  '.sh': 'text/x-shellscript',
};

/** The URI of an item: each id segment percent-encoded, the slashes kept. */
export function itemUri(kind: string, id: string): string {
  return `rye://${kind}/${id.split('/').map(encodeURIComponent).join('/')}`;
}

/**
 * Links a client can attach without another call: one per result the URI reads (a copy shadowed
 * by another space's is left out: `rye://` reads the one that wins, as rye_fetch does). Kept to
 * what the spec requires (the uri, and the id's last segment as the name): every client may put
 * them before the model, beside the text that already describes each result.
 */
export function resultLinks(results: readonly SearchResult[]): ResourceLink[] {
  return results
    .filter((r) => !r.shadowed_by)
    .map((r) => ({ type: 'resource_link', uri: itemUri(r.type, r.id), name: r.id.slice(r.id.lastIndexOf('/') + 1) }));
}

export function registerItemResources(server: McpServer, ctx: McpContext): void {
  const template = new ResourceTemplate(ITEM_URI_TEMPLATE, {
    // Not listed: an index may hold millions; rye_search finds items, and its answers link them.
    list: undefined,
    complete: {
      kind: (value) => KINDS.filter((k) => k.startsWith(value)),
      id: (value, context) => {
        const kind = context?.arguments?.kind;
        return ctx.withIndex(undefined, async (index) => index.itemIds(isKind(kind) ? kind : undefined, value));
      },
    },
  });
  server.registerResource(
    'rye-item',
    template,
    {
      title: 'RYE item',
      description: 'A directive, tool or knowledge item, its signature checked as rye_fetch does',
    },
    async (uri, vars): Promise<ReadResourceResult> => {
      const kind = String(vars.kind);
      let id: string;
      try {
        id = decodeURIComponent(String(vars.id));
        if (!isKind(kind)) {
          throw new InvalidArgumentError(`unknown kind ${shown(kind)} in ${echo(uri.href)}`, {
            hint: `use ${KINDS.map((k) => `rye://${k}/<id>`).join(', ')}`,
          });
        }
      } catch (err) {
        throw readError(
          err instanceof URIError
            ? new InvalidArgumentError(`bad percent-encoding in ${uri.href}`, {
                hint: 'encode each id segment as encodeURIComponent does',
              })
            : err,
        );
      }
      try {
        const item = await ctx.withIndex(undefined, (index) => index.fetch({ item_id: `${kind}:${id}` }));
        return { contents: [{ uri: uri.href, mimeType: mimeType(item), text: item.content, _meta: trust(item) }] };
      } catch (err) {
        throw readError(err);
      }
    },
  );
}

function mimeType(item: FetchResponse): string {
  return MIME_TYPES[item.metadata.extension] ?? 'text/plain';
}

/** Where the item came from and what its signature says, for clients that show it. */
function trust(item: FetchResponse): Record<string, unknown> {
  return {
    'rye-search/source': spaceLabel(item.source, item.bundle),
    'rye-search/integrity': item.integrity,
    'rye-search/path': item.path,
    ...(item.warning && { 'rye-search/warning': item.warning }),
  };
}

/** A failed read as a JSON-RPC error carrying the same code and hint as a tool failure. */
function readError(err: unknown): McpError {
  const e = errorPayload(err);
  const status = e.code === 'E_NOT_FOUND' ? RESOURCE_NOT_FOUND : INVALID_PARAMS;
  return new McpError(status, e.message, {
    code: e.code,
    hint: e.hint,
    ...(e.code === 'E_INTEGRITY' && { error_type: 'integrity' }),
  });
}
