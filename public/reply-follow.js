// Following one reply to its end across dropped connections. The service keeps writing a reply
// whoever listens, and every event's SSE id says how many code points of it the client holds;
// so when the connection breaks (a network blip, a proxy's idle cut, a stream that just stops),
// the page asks again from what it holds and goes on, without losing or repeating text.
import { ApiError, resumeReply } from './api.js';

/** @typedef {import('./api-types.js').ChatStreamEvent} ChatStreamEvent */
/** @typedef {ChatStreamEvent | {event: 'reconnecting', id: string, data: {attempt: number, delayMs: number}}} FollowEvent */

/** Waits before each new attempt; a delta that arrives starts the count again. */
const RETRY_DELAYS_MS = [300, 1000, 3000];

class StreamBrokenError extends Error {}

/** The code points of a string (what the service counts positions in). @param {string} text */
export const codePoints = (text) => [...text].length;

/**
 * Whether asking again may help: the network failed, the stream stopped without an end, or a
 * proxy or the service answered 502/503/504. A refusal (400, 404...) stays a refusal.
 * @param {unknown} error
 */
const transient = (error) =>
  error instanceof TypeError || error instanceof StreamBrokenError || (error instanceof ApiError && [502, 503, 504].includes(error.status));

/** @param {number} ms @param {AbortSignal} signal */
const pause = (ms, signal) =>
  new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', done);
      resolve(undefined);
    }, ms);
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * The part of a delta the page does not hold yet: its id is the total after it, so the delta
 * starts at id − its length. Without a usable id it is taken to start where the page stands.
 * A delta beyond what the page holds means text was missed: that is a broken stream.
 * @param {string} text @param {string} id @param {number} held
 */
function unheldPart(text, id, held) {
  const end = /^\d+$/.test(id) ? Number(id) : null;
  if (end === null) return text;
  const points = [...text];
  const start = end - points.length;
  if (start > held) throw new StreamBrokenError('part of the reply was missed');
  return points.slice(held - start).join('');
}

/**
 * Yields a reply's events from `first` on, resuming it (`GET v1/chat/stream/{id}?after=`) when
 * its stream breaks, at most `retryDelaysMs.length` times in a row. Deltas carry only new text;
 * a resumed stream's `start` is not repeated; before each new attempt a `reconnecting` event says
 * so. A stream that breaks before `start` named the reply cannot be resumed and throws, as does
 * one that breaks once too often. `signal` ends it all (it throws the abort).
 * @param {AsyncIterable<ChatStreamEvent>} first the POST's events, or a resume's
 * @param {{userId: string, signal: AbortSignal, messageId?: string, held?: number, retryDelaysMs?: number[]}} options
 *   messageId and held: a reply already shown (its `start` is not yielded)
 * @returns {AsyncGenerator<FollowEvent, void, undefined>}
 */
export async function* followReply(first, { userId, signal, messageId, held = 0, retryDelaysMs = RETRY_DELAYS_MS }) {
  /** @type {string | null} */
  let replyId = messageId ?? null;
  let started = replyId !== null;
  let failures = 0;
  let source = first;
  for (;;) {
    try {
      for await (const event of source) {
        if (event.event === 'start') {
          replyId = event.data.message_id;
          if (!started) yield event;
          started = true;
        } else if (event.event === 'delta') {
          const text = unheldPart(event.data.text, event.id, held);
          if (!text) continue;
          held += codePoints(text);
          failures = 0;
          yield { ...event, data: { text } };
        } else if (event.event === 'audio' || event.event === 'title') {
          yield event;
        } else {
          yield event; // done or error: the end
          return;
        }
      }
      throw new StreamBrokenError('the reply stream ended early');
    } catch (error) {
      if (signal.aborted || replyId === null || !transient(error) || failures >= retryDelaysMs.length) throw error;
      const delayMs = /** @type {number} */ (retryDelaysMs[failures]);
      failures += 1;
      yield { event: 'reconnecting', id: String(held), data: { attempt: failures, delayMs } };
      await pause(delayMs, signal);
      source = resumeReply(replyId, userId, held, signal);
    }
  }
}
