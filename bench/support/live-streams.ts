import { once } from 'node:events';
import type { ReplyPlan } from './paced-model-server.js';
import { scriptProcess } from './script-process.js';
import { readReply, type ReadReply } from './sse-reader.js';

export interface LiveStreams {
  /** The two instances' base URLs: even replies are produced on `a` and followed on `b`, odd ones the other way. */
  a: string;
  b: string;
  plan: ReplyPlan;
  /** Whether each reply is resumed (followed) on the other instance from its start. */
  follow: boolean;
  streams: number;
}

/** The body of the n-th reply's request (its user one of 50; the model reads the plan from the text). */
export const liveChat = (plan: ReplyPlan, n: number) => ({ user_id: `bench-live-${n % 50}`, text: JSON.stringify(plan) });

/**
 * `streams` replies, half produced on `a` and half on `b`, each resumed (followed) on the other
 * instance from its start when `follow`. Resolves once every reply (and follower) is under way;
 * `done` once every reply and every follower has ended, each checked whole.
 */
export async function streamingReplies({ a, b, plan, follow, streams }: LiveStreams): Promise<{ done: Promise<void> }> {
  let attached = 0;
  let attachedAll!: () => void;
  const allAttached = new Promise<void>((resolve) => (attachedAll = resolve));
  const expected = plan.pieces * plan.size;
  const whole = (reply: ReadReply, where: string) => {
    if (reply.end?.event !== 'done' || reply.text.length !== expected) throw new Error(`a ${where} reply came incomplete: ${reply.text.length} of ${expected} characters, ended ${reply.end?.event} ${reply.end?.data ?? ''}`);
  };
  const replies = Array.from({ length: streams }, async (_, n) => {
    const [producer, follower] = n % 2 === 0 ? [a, b] : [b, a];
    const body = liveChat(plan, n);
    let followed: Promise<ReadReply> | undefined;
    const produced = await readReply(`${producer}/v1/chat/stream`, {
      body,
      onStart: (messageId) => {
        if (!follow) return void (++attached === streams && attachedAll());
        followed = readReply(`${follower}/v1/chat/stream/${messageId}?user_id=${body.user_id}`, {
          onStart: () => void (++attached === streams && attachedAll()),
        });
        followed.catch(() => undefined); // awaited below, once the produced reply has ended: not an unhandled rejection meanwhile
      },
    });
    whole(produced, 'produced');
    if (followed) whole(await followed, 'followed');
  });
  await Promise.race([allAttached, Promise.all(replies)]);
  if (attached < streams) throw new Error(`only ${attached} of ${streams} replies were under way before they ended`);
  return { done: Promise.all(replies).then(() => undefined) };
}

/**
 * `streamingReplies` in a child process (run-live-streams.ts), so the bench process's event loop
 * is left to its load generator. Resolves once every reply is under way.
 */
export async function streamingRepliesApart(streams: LiveStreams): Promise<{ done: Promise<void> }> {
  const child = scriptProcess('run-live-streams.ts', [JSON.stringify(streams)], ['ignore', 'pipe', 'pipe']);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = once(child, 'exit').then(([code]) => {
    if (code !== 0) throw new Error(`the streaming clients failed: ${stderr.trim() || `exit ${String(code)}`}`);
  });
  const attached = new Promise<void>((resolve) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('attached\n')) resolve();
    });
  });
  await Promise.race([attached, exited]);
  return { done: exited };
}
