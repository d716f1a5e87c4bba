import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { STATIC_CONTENT_SECURITY_POLICY } from '../../src/adapters/http/middleware/static-files.js';
import { startTestService, type TestService } from '../support/service.js';

/**
 * The demo page's files as a whole: every stylesheet and module the page loads is served, the
 * modules stay small and set no HTML, and none is left out of the page.
 */

const PUBLIC = resolve(dirname(fileURLToPath(import.meta.url)), '../../public');
const MAX_LINES = 250;
/** JSDoc types only (see its header): the browser never loads it. */
const TYPES_ONLY = 'api-types.js';
/** Written by `npm run api-types` (generated-files.test.ts keeps them current), not by hand. */
const GENERATED = ['openapi-types.d.ts', 'id-rule.js'];

const read = (name: string) => readFileSync(join(PUBLIC, name), 'utf8');
const pageFiles = readdirSync(PUBLIC).filter((name) => !name.startsWith('.'));
const scripts = pageFiles.filter((name) => name.endsWith('.js'));

/** What index.html links: its stylesheets and its entry module. */
function linkedFromIndex(): { styles: string[]; modules: string[] } {
  const html = read('index.html');
  const styles = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1]!);
  const modules = [...html.matchAll(/<script type="module" src="([^"]+)"><\/script>/g)].map((m) => m[1]!);
  return { styles, modules };
}

/** Every module the entry modules import, following static `import ... from './x.js'`. */
function moduleGraph(entries: string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...entries];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    if (seen.has(name)) continue;
    seen.add(name);
    for (const match of read(name).matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'\.\/([^']+)';/gms)) queue.push(match[1]!);
  }
  return seen;
}

describe('demo page: its files', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service?.stop());

  it('serves every stylesheet and module the page loads, with its type and the page CSP', async () => {
    const { styles, modules } = linkedFromIndex();
    expect(styles).to.include('style.css');
    expect(modules).to.deep.equal(['app.js']);
    const loaded = [...styles, ...moduleGraph(modules)];
    for (const name of loaded) {
      const res = await service.call('GET', `/${name}`);
      expect(res.status, name).to.equal(200);
      const type = name.endsWith('.css') ? /^text\/css; charset=utf-8$/ : /^(text|application)\/javascript; charset=utf-8$/;
      expect(res.headers.get('content-type'), name).to.match(type);
      expect(res.headers.get('content-security-policy'), name).to.equal(STATIC_CONTENT_SECURITY_POLICY);
      expect(res.text, name).to.equal(read(name));
    }
  });

  it('never serves the files that only type-check the page (tsconfig.json, openapi-types.d.ts): 404, as for no file', async () => {
    expect(pageFiles).to.include.members(['tsconfig.json', 'openapi-types.d.ts']);
    for (const name of ['tsconfig.json', 'openapi-types.d.ts']) {
      const res = await service.call('GET', `/${name}`);
      expect(res.status, name).to.equal(404);
      expect(res.json.status, name).to.equal('error');
      expect((await service.call('PUT', `/${name}`)).status, `${name}: no 405 either`).to.equal(404);
    }
  });

  it('loads every script of public/ (but the types-only one), so none is left behind', () => {
    const loaded = moduleGraph(linkedFromIndex().modules);
    expect([...loaded].sort()).to.deep.equal(scripts.filter((name) => name !== TYPES_ONLY).sort());
    expect(moduleGraph([TYPES_ONLY]), 'the types file imports nothing').to.deep.equal(new Set([TYPES_ONLY]));
    expect(read('index.html') + [...loaded].map(read).join('\n'), 'the generated types are named in JSDoc only').not.to.match(/from\s+'[^']*openapi-types/);
    const stylesheets = pageFiles.filter((name) => name.endsWith('.css'));
    expect([...linkedFromIndex().styles].sort()).to.deep.equal(stylesheets.sort());
  });

  it(`keeps every file written by hand under ${MAX_LINES} lines`, () => {
    const long = pageFiles
      .filter((name) => !GENERATED.includes(name))
      .map((name) => ({ name, lines: read(name).split('\n').length }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).to.deep.equal([]);
  });

  it('never sets HTML from a script: server text is only ever text', () => {
    for (const name of scripts) {
      const source = read(name);
      expect(source, name).not.to.match(/\.(innerHTML|outerHTML)\b|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser/);
      expect(source, name).not.to.match(/\beval\(|new Function\(/);
    }
  });
});
