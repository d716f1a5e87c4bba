import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { DriverFailure } from './neo4j-failure-detail.js';

export interface DriverSettings {
  /** Without userinfo. */
  uri: string;
  user: string;
  /** Undefined: connect without authentication (a server with auth disabled). */
  password: string | undefined;
  database: string | undefined;
  connectTimeoutMs: number;
  userAgent: string;
}

export type CheckReply =
  | { ok: true; agent: string; protocolVersion: string | null; latencyMs: number }
  | ({ ok: false } & DriverFailure);

/*
 * The driver runs in this worker. neo4j-driver 6 cannot give up on a connection whose server
 * accepted the socket but never answers the Bolt handshake: the socket is held by a pending
 * pool create that `driver.close()` does not reach, and it stays open for good. Terminating
 * the worker closes every socket it owns, so a hung check costs one respawn, not a leak.
 * Plain JavaScript evaluated as a script, so it runs the same from tsx and from dist/.
 * The liveness check of 0 makes every check send RESET on the pooled connection: a real
 * round trip, not a socket that merely looks open. One pooled connection is all a check needs.
 */
const SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { driverPath, uri, user, password, database, connectTimeoutMs, userAgent } = workerData;
const driverReady = Promise.resolve().then(() => require(driverPath)).then((neo4j) =>
  neo4j.driver(uri, password === undefined ? neo4j.auth.none() : neo4j.auth.basic(user, password), {
    connectionTimeout: connectTimeoutMs,
    connectionAcquisitionTimeout: connectTimeoutMs,
    connectionLivenessCheckTimeout: 0,
    maxConnectionPoolSize: 1,
    disableLosslessIntegers: true,
    userAgent,
  }));
driverReady.then(() => parentPort.postMessage('ready'), () => parentPort.postMessage('ready'));
parentPort.on('message', async (message) => {
  if (message === 'close') {
    try { await (await driverReady).close(); } catch {}
    parentPort.postMessage('closed');
    return;
  }
  try {
    const driver = await driverReady;
    const started = performance.now();
    const info = await driver.getServerInfo(database ? { database } : {});
    const latencyMs = performance.now() - started;
    const protocolVersion = info.protocolVersion == null ? null : String(info.protocolVersion);
    parentPort.postMessage({ ok: true, agent: String(info.agent || 'Neo4j'), protocolVersion, latencyMs });
  } catch (error) {
    parentPort.postMessage(failure(error));
  }
});
// A routed driver wraps the real cause ("ECONNREFUSED") in "No routing servers available".
function failure(error) {
  const codes = [];
  const messages = [];
  for (let e = error, depth = 0; e && depth < 5; e = e.cause, depth++) {
    if (e.code) codes.push(String(e.code));
    messages.push(String(e.message || e));
  }
  const code = codes.find((c) => c.startsWith('Neo.')) || codes[0] || '';
  return { ok: false, code, message: messages.join(' <- ') };
}
`;

/** One neo4j-driver instance in its own thread; the thread never keeps the process alive. */
export class DriverWorker {
  private readonly worker: Worker;
  private readonly waiting: ((reply: CheckReply) => void)[] = [];
  private whenClosed: (() => void) | undefined;
  private stoppedBecause: string | undefined;
  private whenReady: (() => void) | undefined;
  /** Resolves once the driver is loaded and made (or the thread has ended). */
  readonly ready = new Promise<void>((resolve) => (this.whenReady = resolve));

  constructor(settings: DriverSettings) {
    // Resolved here, where the project's node_modules are known; the eval'd script has no location.
    const workerData = { ...settings, driverPath: createRequire(import.meta.url).resolve('neo4j-driver') };
    this.worker = new Worker(SOURCE, { eval: true, workerData });
    this.worker.unref();
    this.worker.on('message', (message: CheckReply | 'closed' | 'ready') => {
      if (message === 'ready') this.whenReady?.();
      else if (message === 'closed') this.whenClosed?.();
      else this.waiting.shift()?.(message);
    });
    this.worker.on('error', (error) => this.stopped(`graph driver worker failed: ${error.name}`));
    this.worker.on('exit', () => this.stopped('graph driver worker stopped'));
  }

  /** False once the thread has ended; its owner should make a new one. */
  get alive(): boolean {
    return this.stoppedBecause === undefined;
  }

  check(): Promise<CheckReply> {
    if (this.stoppedBecause) return Promise.resolve({ ok: false, code: '', message: this.stoppedBecause });
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.worker.postMessage('check');
    });
  }

  /** Closes the driver (GOODBYE to the server) within `graceMs`, then ends the thread. */
  async close(graceMs: number): Promise<void> {
    if (this.stoppedBecause) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      this.whenClosed = resolve;
      timer = setTimeout(resolve, graceMs);
      this.worker.postMessage('close');
    });
    clearTimeout(timer);
    await this.terminate();
  }

  async terminate(): Promise<void> {
    await this.worker.terminate();
  }

  private stopped(reason: string): void {
    this.stoppedBecause ??= reason;
    this.whenReady?.();
    this.whenClosed?.();
    for (const resolve of this.waiting.splice(0)) resolve({ ok: false, code: '', message: reason });
  }
}
