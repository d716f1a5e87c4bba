import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createApp } from '../adapters/http/create-app.js';
import type { Config } from './config.js';
import { buildContainer, useCasesFrom } from './container.js';
import { TOKENS, type AdapterOverrides } from './tokens.js';

export interface RunningService {
  url: string;
  server: Server;
  /** Stops accepting, lets in-flight requests finish (up to the deadline), closes resources. */
  stop(): Promise<void>;
}

export async function startService(config: Config, overrides: AdapterOverrides = {}): Promise<RunningService> {
  const container = buildContainer(config, overrides);
  const logger = container.get<Logger>(TOKENS.Logger);
  await container.getAsync(TOKENS.Database); // connects and migrates, when configured
  // Adapters that validate their settings (the persona file, say) fail here, before listening.
  container.get(TOKENS.PersonaSource);
  container.get(TOKENS.ChatModel);
  const app = createApp({
    useCases: useCasesFrom(container),
    ids: container.get(TOKENS.IdGenerator),
    logger,
    settings: { bodyLimitBytes: config.bodyLimitBytes, maxTextLength: config.chat.maxTextLength },
  });
  const server = createServer(app.callback());
  server.listen(config.port, config.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections are closed as soon as their last request is answered.
      server.closeIdleConnections();
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      const deadline = setTimeout(() => server.closeAllConnections(), config.shutdownTimeoutMs);
      await closed;
      clearInterval(sweep);
      clearTimeout(deadline);
      await container.unbindAllAsync();
    })());
  return { url, server, stop };
}
