import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import streamArray from 'stream-json/streamers/stream-array.js';
import type { ImportItem } from '../../application/transfer/import-conversations.js';
import { FieldInvalidError } from '../../domain/errors.js';
import { HttpProblem } from './error-mapping.js';

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

const tooLarge = (limit: number) => new HttpProblem(413, `body: larger than the import limit of ${limit} bytes (IMPORT_MAX_BYTES)`);

/** Whether a Content-Type names JSON (application/json, application/*+json), whatever its parameters. */
export function namesJson(contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[^/]+\+json$/.test(type);
}

/**
 * An import body as conversations, one at a time and never the whole body in memory: a JSON
 * array (ChatGPT's or Claude's conversations.json) through stream-json's parser and StreamArray,
 * each element assembled by itself; anything else as ndjson, split into lines. Each item is pulled
 * when the previous one has been stored, so the socket is read no faster than conversations are
 * written. Beyond `limitBytes`: 413. Not JSON: FieldInvalidError on `body`. A body of nothing but
 * whitespace is an ndjson file of no lines (this service's export of a user without
 * conversations): no items; unless it was sent as JSON (`json`), which is never empty.
 */
export async function* importItems(body: AsyncIterable<Buffer>, limitBytes: number, { json = false } = {}): AsyncGenerator<ImportItem> {
  const chunks = limited(body, limitBytes)[Symbol.asyncIterator]();
  const head: Buffer[] = [];
  let first: number | undefined;
  while (first === undefined) {
    const next = await chunks.next();
    if (next.done) break;
    let chunk = next.value;
    if (head.length === 0 && chunk.subarray(0, 3).equals(BOM)) chunk = chunk.subarray(3);
    head.push(chunk);
    first = chunk.find((byte) => !WHITESPACE.has(byte));
  }
  if (first === undefined) {
    if (json) throw new FieldInvalidError('body', 'is empty');
    return;
  }
  async function* all(): AsyncGenerator<Buffer> {
    yield* head;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  }
  if (first === 0x5b /* [ */) yield* arrayItems(Readable.from(all()));
  else yield* lineItems(all());
}

async function* arrayItems(source: Readable): AsyncGenerator<ImportItem> {
  // Whole values only (no string pieces): half the tokens, and an element is assembled all the same.
  // One element waits at most: elements kept waiting outlive young collections and swell the old heap.
  const elements = streamArray.withParserAsStream({ streamValues: false, readableHighWaterMark: 1 } as Parameters<typeof streamArray.withParserAsStream>[0]);
  source.on('error', (error) => elements.destroy(error));
  source.pipe(elements);
  try {
    for await (const element of elements as AsyncIterable<{ value: unknown }>) yield { value: element.value };
  } catch (error) {
    if (error instanceof HttpProblem) throw error;
    throw new FieldInvalidError('body', `is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  } finally {
    source.destroy();
  }
}

async function* lineItems(chunks: AsyncIterable<Buffer>): AsyncGenerator<ImportItem> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  for await (const chunk of chunks) {
    pending += decoder.write(chunk);
    let start = 0;
    for (let end = pending.indexOf('\n'); end !== -1; end = pending.indexOf('\n', start)) {
      const item = parseLine(pending.slice(start, end));
      start = end + 1;
      if (item) yield item;
    }
    pending = pending.slice(start);
  }
  const item = parseLine(pending + decoder.end());
  if (item) yield item;
}

function parseLine(line: string): ImportItem | null {
  if (line.trim() === '') return null;
  try {
    return { value: JSON.parse(line) as unknown };
  } catch {
    return { unreadable: 'the line is not valid JSON' };
  }
}

async function* limited(body: AsyncIterable<Buffer>, limitBytes: number): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > limitBytes) throw tooLarge(limitBytes);
    yield chunk;
  }
}

export { tooLarge as importTooLarge };
