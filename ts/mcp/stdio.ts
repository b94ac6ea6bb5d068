/**
 * MCP over stdio, one JSON-RPC message a line. The SDK's transport closes itself when a line
 * outgrows its buffer, which ended the server (exit 0) with every call in flight lost. Here a
 * line over the cap is skipped to its end and answered with an error (its `id` when the line's
 * start names one), and the server goes on reading.
 */
import process from 'node:process';
import type { Readable, Writable } from 'node:stream';

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The largest request one message may be, over stdio and HTTP alike. */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

const NEWLINE = 0x0a;
/** Requests answered at once; past it, no more are read until one is answered (see `readIfRoom`). */
const MAX_IN_FLIGHT = 64;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The current line's chunks so far, unless it is being skipped. */
  private chunks: Buffer[] = [];
  private size = 0;
  /** The start of a line over the cap, kept to find its id; set while the rest is skipped. */
  private skipping: Buffer | undefined;
  private readonly onData = (chunk: Buffer) => this.take(chunk);
  private readonly onError = (error: Error) => this.onerror?.(error);
  /** A client that closed its end of stdout is gone, as one that closed stdin is: the server closes. */
  private readonly onOutputError = () => void this.close();
  private closed = false;
  /** Sends waiting for stdout to drain (or close), answered together when it does. */
  private waiting: Array<() => void> = [];
  private readonly wake = () => {
    this.output.off('drain', this.wake);
    this.output.off('close', this.wake);
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
    this.readIfRoom();
  };
  /** Requests read and not yet answered, by id (a client may reuse one). */
  private inFlight = new Map<string | number, number>();
  private inFlightCount = 0;

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    private readonly maxBytes = MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('error', this.onError);
    this.output.on('error', this.onOutputError);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onError);
    // Reading on would keep the process alive after its client left.
    this.input.pause();
    this.chunks = [];
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    this.answered(message);
    return new Promise((resolve) => {
      if (this.closed || this.output.destroyed) return resolve();
      if (this.output.write(`${JSON.stringify(message)}\n`)) return resolve();
      // All sends waiting for the client to read share one pair of listeners: a pair per send
      // left one listener per answer in flight on stdout, and past ten Node printed a leak
      // warning on stderr (300 calls answered to a client that read slowly).
      this.waiting.push(resolve);
      if (this.waiting.length === 1) {
        this.output.once('drain', this.wake);
        this.output.once('close', this.wake);
        // No new request is read until the client reads the answers: one that wrote requests and
        // never read grew the server by ~50 MB a second, answers queued for it, until it aborted.
        this.input.pause();
      }
    });
  }

  /**
   * Reading stops while the client has not read its answers (stdout congested) or while
   * `MAX_IN_FLIGHT` of its requests are being answered: a client that wrote slow searches
   * faster than they were answered grew the server by their backlog (18,000 queued wildcard
   * searches, 390 MB after 18 s, and rising).
   */
  private readIfRoom(): void {
    if (this.closed) return;
    if (this.waiting.length === 0 && this.inFlightCount < MAX_IN_FLIGHT) this.input.resume();
    else this.input.pause();
  }

  /** Counts a request read (a message with a method and an id). */
  private reading(message: JSONRPCMessage): void {
    const { id, method, params } = message as { id?: string | number; method?: unknown; params?: unknown };
    // A cancelled request is never answered (the SDK drops its response): it is done.
    if (method === 'notifications/cancelled') {
      const requestId = (params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === 'string' || typeof requestId === 'number') this.done(requestId);
      return;
    }
    if (id === undefined || id === null || typeof method !== 'string') return;
    this.inFlight.set(id, (this.inFlight.get(id) ?? 0) + 1);
    this.inFlightCount += 1;
    if (this.inFlightCount >= MAX_IN_FLIGHT) this.input.pause();
  }

  /** Counts a request answered (a response to an id read). */
  private answered(message: JSONRPCMessage): void {
    const { id, method } = message as { id?: string | number; method?: unknown };
    if (id === undefined || id === null || method !== undefined) return;
    this.done(id);
  }

  private done(id: string | number): void {
    const open = this.inFlight.get(id);
    if (!open) return;
    if (open === 1) this.inFlight.delete(id);
    else this.inFlight.set(id, open - 1);
    this.inFlightCount -= 1;
    if (this.inFlightCount === MAX_IN_FLIGHT - 1) this.readIfRoom();
  }

  private take(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      this.append(chunk.subarray(start, end));
      this.endLine();
      start = end + 1;
    }
    if (start < chunk.length) this.append(chunk.subarray(start));
  }

  private append(part: Buffer): void {
    if (this.skipping) return;
    this.size += part.length;
    if (this.size > this.maxBytes) {
      this.skipping = Buffer.concat(this.chunks).subarray(0, 4096);
      this.chunks = [];
      return;
    }
    this.chunks.push(part);
  }

  private endLine(): void {
    const skipped = this.skipping;
    const line = skipped ? '' : Buffer.concat(this.chunks).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    this.skipping = undefined;
    if (skipped) {
      this.refuse(idOf(skipped.toString('utf8')), -32600, `request over ${this.maxBytes} bytes`);
    } else if (line.trim() !== '') {
      let message: JSONRPCMessage | undefined;
      try {
        message = JSONRPCMessageSchema.parse(JSON.parse(line));
      } catch {
        this.refuse(idOf(line), -32700, 'Parse error: not a JSON-RPC message');
      }
      if (message) {
        this.reading(message);
        this.onmessage?.(message);
      }
    }
  }

  private refuse(id: string | number | null, code: number, message: string): void {
    this.onerror?.(new Error(message));
    void this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  }
}

/** The `id` a message's text names among its first keys, before any nested value, if any. */
function idOf(text: string): string | number | null {
  const open = text.indexOf('{');
  const nested = text.slice(open + 1, 4096).search(/[[{]/);
  const head = nested === -1 ? text.slice(0, 4096) : text.slice(0, open + 1 + nested);
  const m = /"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")/.exec(head);
  if (!m) return null;
  try {
    return JSON.parse(m[1]!) as string | number;
  } catch {
    return null;
  }
}
