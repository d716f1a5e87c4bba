import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import ts from 'typescript';

/**
 * JSON answers are built by presenters whose return types are their response schemas (the ones
 * /openapi.json is generated from), so `npm run typecheck` fails a presenter that drifts from
 * the document. This keeps the rule from eroding: no route builds a body inline, and every
 * presenter declares its schema as its return type.
 */

const HTTP = join(resolve(dirname(fileURLToPath(import.meta.url)), '../..'), 'src/adapters/http');

const parse = (file: string) => ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);

function walk(node: ts.Node, visit: (node: ts.Node) => void): void {
  visit(node);
  node.forEachChild((child) => walk(child, visit));
}

describe('presenters', () => {
  it('no route assigns an object or array literal to ctx.body', () => {
    const routes = join(HTTP, 'routes');
    const inline: string[] = [];
    for (const name of readdirSync(routes).filter((f) => f.endsWith('.ts'))) {
      const source = parse(join(routes, name));
      walk(source, (node) => {
        if (!ts.isBinaryExpression(node) || node.operatorToken.kind !== ts.SyntaxKind.EqualsToken) return;
        if (node.left.getText(source) !== 'ctx.body') return;
        if (ts.isObjectLiteralExpression(node.right) || ts.isArrayLiteralExpression(node.right)) {
          inline.push(`${name}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
        }
      });
    }
    expect(inline, 'bodies built inline instead of by a presenter').to.deep.equal([]);
  });

  it('every exported presenter returns the type of a response schema', () => {
    const files = readdirSync(HTTP).filter((f) => f.endsWith('presenters.ts'));
    expect(files).to.include.members(['presenters.ts', 'status-presenters.ts']);
    const untyped: string[] = [];
    let presenters = 0;
    for (const name of files) {
      const source = parse(join(HTTP, name));
      for (const statement of source.statements) {
        if (!ts.isFunctionDeclaration(statement) || !statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) continue;
        presenters += 1;
        if (!/^Body<typeof out\.\w+>$/.test(statement.type?.getText(source) ?? '')) untyped.push(`${name}: ${statement.name?.text}`);
      }
    }
    expect(presenters).to.be.above(10);
    expect(untyped, 'presenters not typed by a response schema').to.deep.equal([]);
  });
});
