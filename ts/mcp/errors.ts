/** Tool failures are results with isError and a recovery hint — never thrown protocol errors. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export { errorPayload } from '../errors.js';

export function errorResult(body: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body, null, 2) }] };
}

export function okResult(body: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(body, null, 2) }], structuredContent: body };
}
