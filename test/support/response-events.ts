import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { codePoints } from './reply-client.js';

export type StreamEvent = ResponseStreamEvent;

/** Every stream begins so, numbered 0 and 1. */
export const BEGINNING = ['response.created', 'response.in_progress'];
/** The reply's message item and its part, announced with its first piece (2 and 3): a response without text has none. */
export const ANNOUNCING = ['response.output_item.added', 'response.content_part.added'];
export const OPENING = [...BEGINNING, ...ANNOUNCING];
export const CLOSING = ['response.output_text.done', 'response.content_part.done', 'response.output_item.done'];

/** An SDK stream (of create or retrieve) read event by event, keeping what it read. */
export class EventReader {
  readonly events: StreamEvent[] = [];
  private readonly iterator: AsyncIterator<StreamEvent>;
  /** A read begun by `nothingWithin` that had not ended: the next read takes it. */
  private pending: Promise<IteratorResult<StreamEvent>> | undefined;

  constructor(stream: AsyncIterable<StreamEvent>) {
    this.iterator = stream[Symbol.asyncIterator]();
  }

  private read(): Promise<IteratorResult<StreamEvent>> {
    const read = this.pending ?? this.iterator.next();
    this.pending = undefined;
    return read;
  }

  async next(): Promise<StreamEvent> {
    const { value, done } = await this.read();
    if (done) throw new Error(`the stream ended after ${JSON.stringify(this.events.map((e) => e.type))}`);
    this.events.push(value);
    return value;
  }

  /** Whether no event (nor the stream's end) comes within `ms`; what comes later is still read in order. */
  async nothingWithin(ms: number): Promise<boolean> {
    this.pending ??= this.iterator.next();
    return (await Promise.race([this.pending.then(() => false), sleep(ms).then(() => true)])) === true;
  }

  /** Reads `count` events. */
  async take(count: number): Promise<StreamEvent[]> {
    const taken = [];
    for (let i = 0; i < count; i++) taken.push(await this.next());
    return taken;
  }

  /** Reads to the end of the stream. */
  async rest(): Promise<StreamEvent[]> {
    for (;;) {
      const { value, done } = await this.read();
      if (done) return this.events;
      this.events.push(value);
    }
  }

  get text(): string {
    return textOf(this.events);
  }
}

/** The deltas' text, joined. */
export const textOf = (events: StreamEvent[]): string =>
  events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('');

/**
 * Checks a whole stream of one response (from its start): every event type in the contract's
 * order, sequence numbers rising and following from the text's length, the deltas adding up to
 * the text the closing events carry, the items the events announce being the ones the final
 * response holds (none, for a response without text: then only its beginning and its end), and
 * the last event `terminal`. Returns the final text.
 */
export function expectWholeStream(events: StreamEvent[], terminal = 'response.completed'): string {
  const deltas = events.filter((e) => e.type === 'response.output_text.delta');
  const text = textOf(events);
  const types = text === '' ? [...BEGINNING, terminal] : [...OPENING, ...deltas.map(() => 'response.output_text.delta'), ...CLOSING, terminal];
  expect(events.map((e) => e.type)).to.deep.equal(types);
  expectNumbering(events, 0);
  const last = events.at(-1)!;
  const held = 'response' in last ? last.response.output.map((item) => item.id) : [];
  const announced = events.flatMap((e) => (e.type === 'response.output_item.added' ? [e.item.id] : []));
  expect(announced, 'the items the events announce are the final response\'s').to.deep.equal(held);
  if (text === '') return text;
  const done = events.find((e) => e.type === 'response.output_text.done');
  expect(done && 'text' in done ? done.text : undefined).to.equal(text);
  expect('response' in last ? last.response.output[0] : undefined).to.satisfy((item: { content?: { text: string }[] } | undefined) => (item?.content?.[0]?.text ?? '') === text);
  return text;
}

/**
 * Checks the numbers of a stream's events, its text starting `held` code points in: each rises;
 * a delta's is 3 plus the code points of the reply after it; the opening ones are 0..3 and the
 * closing ones follow the text's length; the end of a response without text is 2.
 */
export function expectNumbering(events: StreamEvent[], held: number): void {
  const numbers = events.map((e) => e.sequence_number);
  for (let i = 1; i < numbers.length; i++) expect(numbers[i], `sequence numbers ${numbers.join(', ')}`).to.be.greaterThan(numbers[i - 1]!);
  let position = held;
  for (const event of events) {
    const opening = OPENING.indexOf(event.type);
    if (opening !== -1) expect(event.sequence_number).to.equal(opening);
    if (event.type === 'response.output_text.delta') {
      position += codePoints(event.delta);
      expect(event.sequence_number).to.equal(position + 3);
    }
    const closing = [...CLOSING, 'response.completed', 'response.incomplete', 'response.failed'].indexOf(event.type);
    if (closing !== -1) expect(event.sequence_number).to.equal(position === 0 ? 2 : position + 4 + Math.min(closing, 3));
  }
}
