import { createLogger } from './logger.js';
import { PersonaFileInvalidError } from '../adapters/persona/json-file-persona-source.js';
import { describeChatModel } from './chat-model.js';
import { ConfigInvalidError, loadConfig } from './config.js';
import { DatabaseStartError } from './database.js';
import { serializeError } from './error-serializer.js';
import { describeGraphDatabase } from './dependencies.js';
import { ListenError } from './listen.js';
import { startService } from './server.js';

/** How long closing what start-up opened may take after the drain (SHUTDOWN_TIMEOUT_MS). */
const CLOSE_GRACE_MS = 5000;

/** `npm start`: serve until SIGTERM or SIGINT, then shut down gracefully and exit 0. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config);
  const service = await startService(config, { logger });
  const chatModel = describeChatModel(config);
  logger.info({ chatModel }, `language model: ${chatModel.provider === 'offline' ? 'the offline assistant' : `${chatModel.model} at ${chatModel.server}`}`);
  logger.info({ graph: describeGraphDatabase(config) }, `graph database: ${describeGraphDatabase(config)}`);
  logger.info({ url: service.url }, `listening on ${config.host}:${config.port}`);

  let stopping = false;
  const shutdown = (signal: string) => {
    // Ctrl-C reaches both npm and the service, and npm forwards it: the repeat must not kill the process mid-drain.
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
    // What start-up opened is closed after the drain; a database that stopped answering (a stalled
    // network) would hold that close for ever, and the process with it.
    const closeBy = config.shutdownTimeoutMs + CLOSE_GRACE_MS;
    setTimeout(() => {
      logger.error({ closeBy }, `shutdown: what the service holds did not close within ${closeBy} ms (SHUTDOWN_TIMEOUT_MS + ${CLOSE_GRACE_MS}); exiting all the same`);
      process.exit(1);
    }, closeBy).unref();
    service.stop().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  // Certificate renewals: re-read the files without a restart (they are also watched).
  if (config.transport.tls) process.on('SIGHUP', () => void service.reloadCertificates('SIGHUP'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/** A stack for the operator; a database error's without the statement's values (see error-serializer.ts). */
function unexpectedStartFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const safe = serializeError(error);
  if (safe.message !== undefined) return safe.stack;
  return [[safe.type, safe.code, safe.statement].filter(Boolean).join(' '), ...safe.stack.split('\n').slice(1)].join('\n');
}

main().catch((error: unknown) => {
  // Start-up problems (bad settings, an invalid persona file) are one clear line, not a stack.
  const expected = [ConfigInvalidError, PersonaFileInvalidError, DatabaseStartError, ListenError].some((type) => error instanceof type);
  process.stderr.write(`${expected ? (error as Error).message : unexpectedStartFailure(error)}\n`);
  process.exit(1);
});
