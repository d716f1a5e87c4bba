/**
 * The clients of the live section's streaming replies, in a process of their own, so that reading
 * thousands of streams does not share an event loop with the load generator measuring saveMessage
 * beside them (on a real deployment they are other machines). Arguments: one JSON object
 * `{ a, b, plan, follow, streams }` (`streamingReplies` in live-streams.ts). Prints
 * `attached` once every reply (and follower) is under way, then `done` once every one has ended
 * whole; a failure is printed on stderr and exits 1.
 */
import { streamingReplies } from './live-streams.js';

const { a, b, plan, follow, streams } = JSON.parse(process.argv[2]!) as Parameters<typeof streamingReplies>[0];
try {
  const { done } = await streamingReplies({ a, b, plan, follow, streams });
  process.stdout.write('attached\n');
  await done;
  process.stdout.write('done\n');
  process.exit(0);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
