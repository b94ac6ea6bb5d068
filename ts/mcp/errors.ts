/** Tool failures are results with isError and a recovery hint — never thrown protocol errors. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export { errorPayload } from '../errors.js';

export function errorResult(body: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body, null, 2) }] };
}

/** The text copy is compact JSON: indentation would cost an agent about a fifth more tokens. */
export function okResult(body: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}
