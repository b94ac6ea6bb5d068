/** Tool failures are results with isError and a recovery hint — never thrown protocol errors. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

import { RyeSearchError } from '../errors.js';

export function errorPayload(err: unknown): { code: string; message: string; hint: string; position?: number } {
  if (err instanceof RyeSearchError) return err.toJSON() as { code: string; message: string; hint: string };
  return { code: 'E_INTERNAL', message: String((err as Error)?.message ?? err), hint: 'this is a bug in rye-search; please report it' };
}

export function errorResult(body: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body, null, 2) }] };
}

export function okResult(body: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(body, null, 2) }], structuredContent: body };
}
