/** Tool failures are results with isError and a recovery hint — never thrown protocol errors. */
import type { CallToolResult, ResourceLink } from '@modelcontextprotocol/sdk/types.js';

export { errorPayload } from '../errors.js';

/** A failure: compact JSON (code, message, hint), the same for a model and a program. */
export function errorResult(body: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
}

/**
 * An answer: `text` for the model (`answer-text.ts`), `body` as structured content for programs,
 * and links to the items it names (`item-resources.ts`), which a client can attach.
 */
export function okResult(body: Record<string, unknown>, text: string, links: ResourceLink[] = []): CallToolResult {
  return { content: [{ type: 'text', text }, ...links], structuredContent: body };
}
