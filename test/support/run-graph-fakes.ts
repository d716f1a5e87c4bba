/**
 * Stand-ins for a Neo4j server, for trying the service by hand:
 *   npx tsx test/support/run-graph-fakes.ts bolt 7687 secret   # speaks Bolt; password "secret"
 *   npx tsx test/support/run-graph-fakes.ts silent 7688        # accepts and never answers
 * Stops on SIGINT/SIGTERM.
 */
import { startFakeBoltServer } from './fake-bolt-server.js';
import { startSilentServer } from './tcp-fixtures.js';

const [mode, port = '0', password = 'secret'] = process.argv.slice(2);
const server =
  mode === 'bolt'
    ? await startFakeBoltServer({ password, port: Number(port) })
    : mode === 'silent'
      ? await startSilentServer(Number(port))
      : (process.stderr.write('usage: run-graph-fakes.ts bolt|silent [port] [password]\n'), process.exit(2));
process.stdout.write(`${mode} server listening on 127.0.0.1:${server.port}\n`);
const stop = () => void server.close().then(() => process.exit(0));
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
