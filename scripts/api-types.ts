/**
 * Writes the demo page's generated files (scripts/page-files.ts) into public/:
 * openapi-types.d.ts (the types of /openapi.json) and id-rule.js (what an id may be).
 *
 *   npm run api-types
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../src/bootstrap/project-files.js';
import { generatedPageFiles } from './page-files.js';

for (const [name, text] of Object.entries(await generatedPageFiles())) {
  writeFileSync(join(projectRoot(), 'public', name), text);
  process.stdout.write(`wrote public/${name}\n`);
}
