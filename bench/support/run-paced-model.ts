/**
 * The paced model server in a process of its own (`startPacedModelProcess`), so that a section
 * loading thousands of streams does not share the bench process's event loop with the model:
 * its base URL is the first line on stdout; it stops on SIGTERM.
 */
import { startPacedModelServer } from './paced-model-server.js';

const model = await startPacedModelServer();
process.stdout.write(`${model.baseUrl}\n`);
process.once('SIGTERM', () => void model.stop().finally(() => process.exit(0)));
