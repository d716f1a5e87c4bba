import { readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import ts from 'typescript';

/**
 * The import direction of the hexagon: domain <- application <- adapters <- bootstrap.
 * Every `.ts` file under src/ is scanned with the TypeScript pre-processor (static imports,
 * re-exports, dynamic `import()`, `import('...')` types, `require`, module augmentations and
 * `/// <reference types>` directives), and each rule lists every violation it finds.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');

type Layer = 'domain' | 'application' | 'adapters' | 'bootstrap' | 'other';

interface ImportRef {
  /** The importing file, relative to the project root with forward slashes. */
  file: string;
  fileLayer: Layer;
  line: number;
  specifier: string;
  /** For relative specifiers: the target's path relative to the project root. */
  target?: string;
  /** For relative specifiers inside src/: the target's layer. */
  targetLayer?: Layer;
  kind: 'relative' | 'builtin' | 'package';
}

const toPosix = (path: string) => path.split(sep).join('/');

function layerOf(absolutePath: string): Layer | undefined {
  const fromSrc = toPosix(relative(SRC, absolutePath));
  if (fromSrc.startsWith('../') || fromSrc === '..') return undefined; // outside src/
  const top = fromSrc.split('/')[0];
  return top === 'domain' || top === 'application' || top === 'adapters' || top === 'bootstrap' ? top : 'other';
}

function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts'))
    .map((path) => join(SRC, path))
    .sort();
}

function importsOf(absolutePath: string): ImportRef[] {
  const text = readFileSync(absolutePath, 'utf8');
  const info = ts.preProcessFile(text, true, true);
  const file = toPosix(relative(ROOT, absolutePath));
  const fileLayer = layerOf(absolutePath) ?? 'other';
  const lineAt = (pos: number) => text.slice(0, pos).split('\n').length;
  const references = [...info.importedFiles, ...info.typeReferenceDirectives.map((d) => ({ ...d, fileName: `types:${d.fileName}` }))];
  return references.map(({ fileName: specifier, pos }): ImportRef => {
    const base = { file, fileLayer, line: lineAt(pos), specifier };
    if (specifier.startsWith('./') || specifier.startsWith('../') || specifier === '.' || specifier === '..') {
      const targetPath = resolve(dirname(absolutePath), specifier);
      return { ...base, kind: 'relative', target: toPosix(relative(ROOT, targetPath)), targetLayer: layerOf(targetPath) };
    }
    if (specifier.startsWith('types:')) return { ...base, kind: 'package' };
    return { ...base, kind: isBuiltin(specifier) ? 'builtin' : 'package' };
  });
}

const FILES = sourceFiles();
const IMPORTS = FILES.flatMap(importsOf);

const describeRef = (ref: ImportRef) =>
  `  ${ref.file}:${ref.line} imports '${ref.specifier}'` + (ref.target ? ` (${ref.target})` : '');

function expectNoViolations(rule: string, violations: ImportRef[]): void {
  const lines = violations.map(describeRef);
  expect(lines, `${rule}\n${lines.length} violation(s):\n${lines.join('\n')}\n`).to.deep.equal([]);
}

describe('architecture: layering', () => {
  describe('the scanner', () => {
    it('finds the source files of every layer', () => {
      const layers = new Set(FILES.map((path) => layerOf(path)));
      expect(FILES.length, 'number of .ts files under src/').to.be.greaterThan(10);
      for (const layer of ['domain', 'application', 'adapters', 'bootstrap'] as const) {
        expect(layers.has(layer), `no .ts file found under src/${layer}`).to.equal(true);
      }
    });

    it('really finds imports (the composition root imports adapters and application code)', () => {
      const fromContainer = IMPORTS.filter((ref) => ref.file === 'src/bootstrap/container.ts');
      expect(fromContainer.some((ref) => ref.targetLayer === 'adapters'), 'container.ts -> src/adapters').to.equal(true);
      expect(fromContainer.some((ref) => ref.targetLayer === 'application'), 'container.ts -> src/application').to.equal(true);
      expect(fromContainer.some((ref) => ref.kind === 'package'), 'container.ts -> an npm package').to.equal(true);
      expect(IMPORTS.filter((ref) => ref.fileLayer === 'domain').length, 'imports found in src/domain').to.be.greaterThan(0);
      expect(IMPORTS.filter((ref) => ref.fileLayer === 'application').length, 'imports found in src/application').to.be.greaterThan(0);
    });

    it('sees static imports, re-exports, dynamic imports and import types', () => {
      const sample = [
        "import type { A } from './a.js';",
        "import b, { c } from 'pkg-b';",
        "export * from '../d.js';",
        "export { e } from 'node:fs';",
        "const f = await import('./f.js');",
        "type G = import('@scope/g').G;",
      ].join('\n');
      const found = ts.preProcessFile(sample, true, true).importedFiles.map((f) => f.fileName);
      expect(found).to.have.members(['./a.js', 'pkg-b', '../d.js', 'node:fs', './f.js', '@scope/g']);
    });
  });

  it('src/domain imports only relative files inside src/domain (no packages, no node: modules)', () => {
    const violations = IMPORTS.filter(
      (ref) => ref.fileLayer === 'domain' && !(ref.kind === 'relative' && ref.targetLayer === 'domain'),
    );
    expectNoViolations('src/domain/** may import only relative files inside src/domain.', violations);
  });

  it('src/application imports only src/domain, src/application and node: built-ins (no npm packages)', () => {
    const violations = IMPORTS.filter((ref) => {
      if (ref.fileLayer !== 'application') return false;
      if (ref.kind === 'builtin') return false;
      return !(ref.kind === 'relative' && (ref.targetLayer === 'domain' || ref.targetLayer === 'application'));
    });
    expectNoViolations(
      'src/application/** may import only src/domain, src/application and node: built-ins ' +
        '(never src/adapters, src/bootstrap, koa, @koa/*, @mikro-orm/*, neo4j-driver, inversify, openai, pino, zod, pg, knex or any other package).',
      violations,
    );
  });

  it('src/adapters never imports src/bootstrap', () => {
    const violations = IMPORTS.filter((ref) => ref.fileLayer === 'adapters' && ref.targetLayer === 'bootstrap');
    expectNoViolations('src/adapters/** must not import src/bootstrap.', violations);
  });
});
