import type { IdGenerator } from '../../../application/ports/id-generator.js';
import type { RequestStep } from './steps.js';

const ACCEPTABLE = /^[\x20-\x7e]{1,128}$/;

declare module 'koa' {
  interface DefaultState {
    requestId: string;
  }
}

/** Echoes the client's X-Request-Id when it is 1..128 printable ASCII characters, else makes one. */
export function requestId(ids: IdGenerator): RequestStep {
  return (ctx) => {
    const sent = ctx.get('X-Request-Id');
    const id = ACCEPTABLE.test(sent) ? sent : ids.newId();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
  };
}
