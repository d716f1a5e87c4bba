import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import fc from 'fast-check';
import { generatedPageFiles } from '../../scripts/page-files.js';
import { clientIdProblem, MAX_ID_LENGTH } from '../../src/domain/ids.js';

/**
 * The demo page's files made from the service's code (scripts/page-files.ts) are committed;
 * these tests fail when one is stale, and check that the page's id rule is the service's.
 */

const publicFile = (name: string) => new URL(`../../public/${name}`, import.meta.url);

describe('demo page: its generated files', function () {
  this.timeout(60_000); // the id rule asks the service's rule about every code point

  it('are what `npm run api-types` writes now (regenerate after changing the API or the id rule)', async () => {
    const files = await generatedPageFiles();
    expect(Object.keys(files)).to.have.members(['openapi-types.d.ts', 'id-rule.js']);
    for (const [name, text] of Object.entries(files)) {
      expect(readFileSync(publicFile(name), 'utf8') === text, `public/${name} is stale: run npm run api-types`).to.equal(true);
    }
  });

  it("the page refuses exactly the user ids the service refuses (state.js's userIdProblem, by id-rule.js)", async () => {
    const { userIdProblem } = (await import(publicFile('state.js').href)) as { userIdProblem(value: string): string };
    const agrees = (value: string) => (userIdProblem(value) === '') === (clientIdProblem(value) === null);
    const edges = ['', 'a', 'a'.repeat(MAX_ID_LENGTH), 'a'.repeat(MAX_ID_LENGTH + 1), '😀'.repeat(MAX_ID_LENGTH), '😀'.repeat(MAX_ID_LENGTH + 1)];
    for (const value of [...edges, 'a\0', 'a\x7f', '\x9f', ' \u00a0 ', '\ud800', 'x\udc00', '\ud83d\ude00', 'é\u200b']) {
      expect(agrees(value), JSON.stringify(value)).to.equal(true);
    }
    const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code));
    const likely = fc.constantFrom('a', ' ', '\0', '\x1f', '\x7f', '\x85', '\ud800', '\udfff', '😀', 'é');
    const unit = fc.oneof(anyCodePoint, likely);
    fc.assert(fc.property(fc.oneof(fc.string({ unit, maxLength: 8 }), fc.string({ unit, minLength: 120, maxLength: 140 })), agrees), { numRuns: 2000 });
  });
});
