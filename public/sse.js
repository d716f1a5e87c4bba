// A small parser for `text/event-stream` bodies read with fetch(): the part of the HTML
// standard's event-stream interpretation this service needs (`event:`, `data:`, `id:`, comments,
// blank-line dispatch; LF, CRLF or CR line ends; `retry:` is ignored, since nothing reconnects
// on its own here).

/**
 * One dispatched event. `id` is the standard's "last event ID": set by an `id:` line and kept
 * by the events after it until another one changes it ("" before any), which is what a client
 * sends back as `Last-Event-ID` to resume.
 * @typedef {{event: string, data: string, id: string}} ServerSentEvent
 */

/**
 * Yields every event in the response body as soon as it is complete.
 * `event` defaults to "message"; several `data:` lines are joined with "\n".
 * @param {ReadableStream<BufferSource>} body a response body (any bytes TextDecoderStream takes)
 * @param {AbortSignal} [signal] stops reading (the reader is cancelled)
 * @returns {AsyncGenerator<ServerSentEvent, void, undefined>}
 */
export async function* readEventStream(body, signal) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const onAbort = () => reader.cancel().catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  let buffer = '';
  let event = '';
  /** @type {string[]} */
  let data = [];
  let lastId = '';
  let first = true;
  let finished = false;
  let failed = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      buffer += first ? value.replace(/^\uFEFF/, '') : value;
      first = false;
      // Cut off every complete line; a trailing CR may still be half of a CRLF, so keep it.
      for (;;) {
        const match = /\r\n|\n|\r(?=[^\n])/.exec(buffer);
        if (!match) break;
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        if (line === '') {
          if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), id: lastId };
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue; // a comment, e.g. ": ping"
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
        else if (field === 'id' && !value.includes('\0')) lastId = value; // the standard ignores an id with NUL
      }
    }
    // The standard drops an event that was not ended by a blank line.
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // A failure, or an abort, closes the response; a consumer done with the events (after `done`,
    // which the service follows with the body's end) lets it end, else the request shows as failed.
    if (finished) reader.releaseLock();
    else if (failed || signal?.aborted) reader.cancel().catch(() => {});
    else void drain(reader);
  }
}

/** Reads a body to its end, for at most `ms` (then it is cancelled). @param {ReadableStreamDefaultReader<string>} reader */
async function drain(reader, ms = 2000) {
  const timer = setTimeout(() => reader.cancel().catch(() => {}), ms);
  try {
    while (!(await reader.read()).done);
  } catch {
    // cancelled, or the connection went: nothing to do
  } finally {
    clearTimeout(timer);
  }
}
