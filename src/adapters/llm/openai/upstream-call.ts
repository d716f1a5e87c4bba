import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import { ChatModelFailedError, ChatModelTimedOutError } from '../../../domain/errors.js';
import { safeErrorCode, statusLine } from '../../openai-api-error.js';

/**
 * One call to the language model: the caller's signal joined with our own deadline, and the
 * translation of whatever the SDK throws into the port's errors. The deadline covers the SDK's
 * own retries too, so a call never takes much longer than `timeoutMs` before the reply starts;
 * `restart()` turns it into an idle timeout while a stream is flowing.
 */
export class UpstreamCall {
  /** Aborted by the caller's signal or by our deadline, whichever comes first. */
  readonly signal: AbortSignal;
  private readonly aborter = new AbortController();
  private timer: NodeJS.Timeout;
  private timedOut = false;
  /** The answer was whole (`[DONE]`) and its body was then cut, not waited for any longer (`ending`). */
  endedEarly = false;
  // One controller, which the caller's abort is passed on to, rather than AbortSignal.any over two:
  // a signal fewer per call, and none of the weak references any() keeps for its sources.
  private readonly onCallerAbort = () => this.aborter.abort(this.callerSignal!.reason);

  constructor(
    private readonly callerSignal: AbortSignal | undefined,
    private readonly timeoutMs: number,
    private readonly host: string,
  ) {
    this.signal = this.aborter.signal;
    if (callerSignal?.aborted) this.onCallerAbort();
    else callerSignal?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.timer = setTimeout(() => this.expire(), timeoutMs);
  }

  /** The caller's own abort surfaces as that abort (never as a 502), before anything is sent. */
  throwIfAborted(): void {
    if (this.callerSignal?.aborted) throw abortReason(this.callerSignal);
  }

  /** A new chunk arrived: the wait for the next one starts over. */
  restart(): void {
    this.timer.refresh();
  }

  /**
   * `pending`, or this call's abort (the caller's stop, or the deadline), whichever comes first:
   * the SDK sleeps out a server's Retry-After without looking at the signal.
   */
  bounded<T>(pending: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        pending.catch(() => undefined);
        reject(this.signal.reason ?? new Error('The operation was aborted'));
      };
      if (this.signal.aborted) return onAbort();
      this.signal.addEventListener('abort', onAbort, { once: true });
      const settle = () => this.signal.removeEventListener('abort', onAbort);
      pending.then(
        (value) => (settle(), resolve(value)),
        (error: unknown) => (settle(), reject(error)),
      );
    });
  }

  /**
   * The answer is whole (`[DONE]`): its body is read on to its end, so the connection can serve
   * again, but for a moment only; a server that holds it open past that is cut off, and that
   * is no failure (`endedEarly`).
   */
  ending(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.endedEarly = true;
      this.aborter.abort();
    }, Math.min(END_GRACE_MS, this.timeoutMs));
  }

  /** The SDK ends a stream quietly when it is aborted; this turns that quiet end into the error it is. */
  throwIfStopped(): void {
    this.throwIfAborted();
    if (this.timedOut) throw this.timeoutError();
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener('abort', this.onCallerAbort);
  }

  translate(error: unknown): unknown {
    if (this.callerSignal?.aborted) return abortReason(this.callerSignal);
    if (this.timedOut || error instanceof APIConnectionTimeoutError) return this.timeoutError();
    if (error instanceof ChatModelFailedError || error instanceof ChatModelTimedOutError) return error;
    if (error instanceof APIConnectionError) {
      // Redirects are not followed (fetchOptions.redirect = 'error'): undici's own words for one.
      if (causes(error).some((cause) => cause instanceof Error && cause.message === 'unexpected redirect')) {
        return new ChatModelFailedError(`the language model at ${this.host} answered with a redirect: set its base URL to where it leads`);
      }
      return new ChatModelFailedError(`could not reach the language model at ${this.host}`);
    }
    if (error instanceof APIError) {
      if (error.status === undefined) return new ChatModelFailedError(`the language model reported an error while answering${safeErrorCode(error)}`);
      return new ChatModelFailedError(`the language model answered ${statusLine(error)}`);
    }
    if (error instanceof SyntaxError) return new ChatModelFailedError('the language model sent an answer that is not valid JSON');
    // undici's "terminated": the connection broke off in the middle of the answer.
    return new ChatModelFailedError(`the connection to the language model at ${this.host} broke off`);
  }

  private timeoutError(): ChatModelTimedOutError {
    return new ChatModelTimedOutError(`the language model did not answer within ${this.timeoutMs} ms`);
  }

  private expire(): void {
    this.timedOut = true;
    this.aborter.abort();
  }
}

/** How long a body may stay open after its answer's `[DONE]`. */
const END_GRACE_MS = 200;

/**
 * The SDK's fetch, with a bound on how long a server may ask it to wait before a retry: the SDK
 * sleeps out any Retry-After (a day, if a server says so). A wait longer than the call may last is
 * not waited for; the server's answer (a 429, say) is the call's, at once. `send` makes the request
 * (modelFetch).
 */
export function fetchWithinDeadline(timeoutMs: number, send: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await send(input, init);
    if (response.ok || retryAfterMs(response.headers) <= timeoutMs) return response;
    const headers = new Headers(response.headers);
    headers.set('x-should-retry', 'false');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}

/** The wait a server asks for (`retry-after-ms`, or `retry-after` in seconds or as a date), as the SDK reads it; 0 when none. */
function retryAfterMs(headers: Headers): number {
  const ms = parseFloat(headers.get('retry-after-ms') ?? '');
  if (!Number.isNaN(ms)) return ms;
  const after = headers.get('retry-after');
  if (after === null) return 0;
  const seconds = parseFloat(after);
  return Number.isNaN(seconds) ? Date.parse(after) - Date.now() || 0 : seconds * 1000;
}

/** An error's causes, nearest first (a few at most). */
function causes(error: unknown): unknown[] {
  const found: unknown[] = [];
  for (let cause = (error as { cause?: unknown }).cause; cause !== undefined && found.length < 5; cause = (cause as { cause?: unknown } | null)?.cause) found.push(cause);
  return found;
}

/** Why `signal` was aborted, as fetch rejects with it (an AbortError when it gives no reason). */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? Object.assign(new Error('The operation was aborted'), { name: 'AbortError' });
}
