import { createLogger } from './logger.js';
import { PersonaFileInvalidError } from '../adapters/persona/json-file-persona-source.js';
import { describeChatModel } from './chat-model.js';
import { ConfigInvalidError, loadConfig } from './config.js';
import { DatabaseStartError } from './database.js';
import { describeGraphDatabase } from './dependencies.js';
import { startService } from './server.js';

/** `npm start`: serve until SIGTERM or SIGINT, then shut down gracefully and exit 0. */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config);
  const service = await startService(config, { logger });
  const chatModel = describeChatModel(config);
  logger.info({ chatModel }, `language model: ${chatModel.provider === 'offline' ? 'the offline assistant' : `${chatModel.model} at ${chatModel.server}`}`);
  logger.info({ graph: describeGraphDatabase(config) }, `graph database: ${describeGraphDatabase(config)}`);
  logger.info({ url: service.url }, `listening on ${config.host}:${config.port}`);

  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down: no new connections, finishing requests in flight');
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
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  // Start-up problems (bad settings, an invalid persona file) are one clear line, not a stack.
  const expected = [ConfigInvalidError, PersonaFileInvalidError, DatabaseStartError].some((type) => error instanceof type);
  process.stderr.write(`${expected ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
