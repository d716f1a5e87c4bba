import type { Logger } from 'pino';
import type { GraphStatus, GraphStatusProbe } from '../../application/ports/graph-status-probe.js';
import { DriverWorker, type CheckReply, type DriverSettings } from './neo4j-driver-worker.js';
import { describeNeo4jFailure, isTimeoutFailure } from './neo4j-failure-detail.js';
import { parseNeo4jUri } from './neo4j-uri.js';

export interface Neo4jGraphStatusProbeOptions {
  /** bolt://, neo4j:// or their +s / +ssc forms; userinfo, if any, is used as the credentials. */
  uri: string;
  /** Default: the URI's user name, else `neo4j`. */
  user?: string | undefined;
  /** Default: the URI's password; with neither, the driver connects without authentication. */
  password?: string | undefined;
  database?: string | undefined;
  /** Every check answers within this; also the driver's connection time-out. */
  timeoutMs: number;
  userAgent?: string;
  logger?: Pick<Logger, 'info' | 'warn'>;
}

/**
 * The graph database through the official neo4j-driver: one driver for the process (in a
 * worker thread, see DriverWorker), created now and closed by `close()`. Concurrent checks
 * share the one in flight.
 */
export class Neo4jGraphStatusProbe implements GraphStatusProbe {
  /** The URI without credentials: the only form that is logged. */
  readonly address: string;
  private readonly settings: DriverSettings;
  private readonly timeoutMs: number;
  private readonly secrets: string[];
  private readonly logger: Pick<Logger, 'info' | 'warn'> | undefined;
  private worker: DriverWorker | undefined;
  private inFlight: Promise<GraphStatus> | undefined;
  private lastReported: string | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: Neo4jGraphStatusProbeOptions) {
    const uri = parseNeo4jUri(options.uri);
    const password = options.password ?? uri.password;
    this.address = uri.safe;
    this.timeoutMs = options.timeoutMs;
    this.logger = options.logger;
    this.secrets = [password, uri.password].filter((s): s is string => !!s);
    this.settings = {
      uri: uri.safe,
      user: options.user ?? uri.username ?? 'neo4j',
      password,
      database: options.database,
      connectTimeoutMs: options.timeoutMs,
      userAgent: options.userAgent ?? 'assistant-backend',
    };
    this.worker = new DriverWorker(this.settings);
  }

  check(): Promise<GraphStatus> {
    if (this.closing) return Promise.resolve(CLOSED);
    return (this.inFlight ??= this.run().finally(() => (this.inFlight = undefined)));
  }

  /** Resolves once the driver is loaded, so a first check spends its time-out on the server alone. */
  async ready(): Promise<void> {
    await this.worker?.ready;
  }

  /** Says GOODBYE to the server and ends the driver, a check in flight with it; later checks answer "closed". */
  close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    return (this.closing ??= worker ? worker.close(this.timeoutMs) : Promise.resolve());
  }

  private async run(): Promise<GraphStatus> {
    const worker = (this.worker ??= new DriverWorker(this.settings));
    const reply = await within(worker.check(), this.timeoutMs);
    if (reply === undefined || (!reply.ok && isTimeoutFailure(reply)) || !worker.alive) {
      // The driver may hold a socket stuck in the handshake: drop the whole worker with it,
      // and load the next one now, so the next check does not pay for the start-up.
      void worker.terminate();
      if (this.worker === worker) this.worker = this.closing ? undefined : new DriverWorker(this.settings);
    }
    const status: GraphStatus = this.closing
      ? CLOSED
      : reply === undefined
        ? { state: 'unreachable', detail: `no answer within ${this.timeoutMs} ms` }
        : reply.ok
          ? { state: 'connected', serverVersion: reply.agent, latencyMs: Math.round(reply.latencyMs * 10) / 10 }
          : { state: 'unreachable', detail: this.redact(describeNeo4jFailure(reply, this.timeoutMs)) };
    if (!this.closing) this.log(status, reply);
    return status;
  }

  /** One line per change of state, not one per check: readiness probes would flood the log. */
  private log(status: GraphStatus, reply: CheckReply | undefined): void {
    const key = status.state === 'connected' ? 'connected' : status.state === 'unreachable' ? status.detail : 'disabled';
    if (key === this.lastReported) return;
    this.lastReported = key;
    if (status.state === 'connected') {
      this.logger?.info({ graph: this.address, serverVersion: status.serverVersion, protocol: reply?.ok ? reply.protocolVersion : null }, 'graph database connected');
    } else if (status.state === 'unreachable') {
      const cause = reply && !reply.ok ? { code: reply.code, cause: this.redact(reply.message).slice(0, 500) } : {};
      this.logger?.warn({ graph: this.address, detail: status.detail, ...cause }, 'graph database unreachable');
    }
  }

  private redact(text: string): string {
    return this.secrets.reduce((out, secret) => out.split(secret).join('***'), text);
  }
}

const CLOSED: GraphStatus = { state: 'unreachable', detail: 'the graph database connection is closed (shutting down)' };

/** The promise's value, or undefined if it takes longer than `ms`; the timer never holds the process. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, ms, undefined);
    timer.unref();
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
