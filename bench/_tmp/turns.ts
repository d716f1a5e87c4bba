import { chatApplication } from '../../test/support/chat-application.js';
import { OfflineChatModel } from '../../src/adapters/llm/offline/offline-chat-model.js';
const app = chatApplication(new OfflineChatModel({ streamDelayMs: 0 }), { chat: { maxTextLength: 32000, historyMessages: 20, historyChars: 12000 } });
const S = ['Hello! Who are you?','I feel tired today, work was long.','My sister thinks I should change jobs because my boss never listens.'];
let n = 0;
async function worker(count: number) { for (let i = 0; i < count; i++) { const k = n++ % 200; await app.send.execute({ userId: `u${k % 50}`, conversationId: `c-${k}`, text: `${S[n % 3]} (${n})` }); } }
const cpu: number[] = [];
for (let round = 0; round < 8; round++) {
  const t = process.cpuUsage();
  await Promise.all(Array.from({ length: 32 }, () => worker(1000)));
  const c = process.cpuUsage(t);
  if (round >= 2) cpu.push((c.user + c.system) / 32000);
}
cpu.sort((a, b) => a - b);
console.log(`median ${cpu[Math.floor(cpu.length / 2)]!.toFixed(1)} µs CPU/turn [${cpu[0]!.toFixed(1)}–${cpu.at(-1)!.toFixed(1)}]`);
process.exit(0);
