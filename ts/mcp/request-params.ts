/**
 * Requests whose params do not fit their method (`tools/call` with `arguments: [1, 2]` or no
 * `name`, `resources/read` without a `uri`) are answered -32602, "invalid params", naming the
 * first problem. The SDK checks them inside its handler wrapper, where the failed check became
 * -32603, "internal error", with the whole validation report as its message (~600 characters of
 * JSON) — a client's mistake told to the model as the server's.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ClientRequestSchema, ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The longest message such an answer carries: what the problem is and where, not the params. */
const MAX_MESSAGE_CHARS = 300;

const SCHEMAS = new Map(ClientRequestSchema.options.map((schema) => [schema.shape.method.value as string, schema]));

/** The problem with a request's params, for a method the server knows; undefined when they fit. */
export function paramsProblem(message: JSONRPCMessage): string | undefined {
  if (!('method' in message) || !('id' in message)) return undefined;
  const schema = SCHEMAS.get(message.method);
  if (!schema) return undefined; // an unknown method is the SDK's to answer (-32601)
  const checked = schema.safeParse({ method: message.method, params: message.params });
  if (checked.success) return undefined;
  const issue = checked.error.issues[0];
  const where = issue?.path.map(String).join('.') || 'params';
  return `invalid params for ${message.method}: ${where}: ${issue?.message ?? 'not what the method takes'}`.slice(
    0,
    MAX_MESSAGE_CHARS,
  );
}

/** Makes `transport` (once a server is connected to it) answer such requests itself. */
export function answerInvalidParams(transport: Transport): void {
  const dispatch = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const problem = paramsProblem(message);
    if (problem === undefined || !('id' in message)) return dispatch?.(message, extra);
    void transport.send({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InvalidParams, message: problem } });
  };
}
