import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's root: the nearest folder above this file holding package.json. The same from
 * the TypeScript sources (src/bootstrap) and from the compiled service (dist/bootstrap).
 */
export function projectRoot(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** The service's version, from package.json. */
export const VERSION: string = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')).version;
