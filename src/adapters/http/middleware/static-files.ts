import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { send } from '@koa/send';
import type { Middleware } from 'koa';

/**
 * What the demo page may do, and nothing more: its own scripts, styles and icon, calls to this
 * service, and audio from blob: URLs (speech is fetched first, so a failure can show its JSON
 * detail). API responses keep `default-src 'none'` (security-headers.ts).
 */
export const STATIC_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The project's `public/` folder: the nearest one above this file, looking no further than the
 * project root (the folder with package.json), so it is found from src/ and from a build in dist/.
 */
export function defaultPublicDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'public');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    const parent = dirname(dir);
    if (existsSync(join(dir, 'package.json')) || parent === dir) return candidate;
    dir = parent;
  }
}

const FILE_METHODS = 'GET, HEAD';

/** Files of the folder that only type-check the page (`npm run typecheck`): never fetched by it, never served. */
const DEVELOPMENT_FILE = /(\.d\.ts|\/tsconfig\.json)$/;

/** The decoded path of `urlPath` when its name may be served (no NUL, no hidden segment, no type-checking file); else null. */
function servablePath(urlPath: string): string | null {
  let path: string;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (path.includes('\0') || path.split('/').some((segment) => segment.startsWith('.'))) return null;
  return DEVELOPMENT_FILE.test(path) ? null : path;
}

/** Whether GET `urlPath` would serve a file of `root`, by the rules `send` applies (no hidden files, nothing outside). */
export function isServedFile(root: string, urlPath: string): boolean {
  const path = servablePath(urlPath);
  if (path === null) return false;
  const file = resolve(root, `.${path.endsWith('/') ? `${path}index.html` : path}`);
  if (file !== root && !file.startsWith(root + sep)) return false;
  try {
    const found = statSync(file);
    return found.isFile() || (found.isDirectory() && statSync(join(file, 'index.html')).isFile());
  } catch {
    return false;
  }
}

/**
 * Serves the files of `root` (GET and HEAD; `/` is index.html) for requests no route answered;
 * other methods on a file's path get 405 with `Allow: GET, HEAD` (OPTIONS: 200 with Allow).
 * Mounted after the router: API routes win, and a path that is no file is left alone, so the
 * error handler still answers with the JSON 404 (or allowedMethods with its 405). Hidden files,
 * the page's type-checking files and paths leaving the folder are never served.
 */
export function staticFiles(root: string = defaultPublicDir()): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.body != null || ctx.status !== 404) return;
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      // A file's path is a known path: other methods are told what it allows, as API paths are.
      if (!isServedFile(root, ctx.path)) return;
      ctx.set('Allow', FILE_METHODS);
      if (ctx.method === 'OPTIONS') {
        ctx.status = 200;
        ctx.body = '';
      } else ctx.status = 405;
      return;
    }
    // `send` looks for the file itself: only the names it must never serve are refused here.
    if (servablePath(ctx.path) === null) return;
    try {
      await send(ctx, ctx.path, {
        root,
        index: 'index.html',
        gzip: false,
        brotli: false,
        setHeaders: (res) => {
          // Only once a file was found: a miss keeps the API's headers on its JSON 404.
          res.setHeader('Content-Security-Policy', STATIC_CONTENT_SECURITY_POLICY);
          res.setHeader('Cache-Control', 'no-cache');
        },
      });
    } catch (error) {
      // Not found (404), outside the folder (403) or undecodable (400): not a file of ours.
      const status = (error as { status?: unknown }).status;
      if (typeof status === 'number' && status < 500) return;
      throw error;
    }
  };
}
