import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

/**
 * Serves the files of `root` (GET and HEAD; `/` is index.html) for requests no route answered.
 * Mounted after the router: API routes win, and a path that is no file is left alone, so the
 * error handler still answers with the JSON 404 (or allowedMethods with its 405). Hidden files
 * and paths leaving the folder are never served.
 */
export function staticFiles(root: string = defaultPublicDir()): Middleware {
  return async (ctx, next) => {
    await next();
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.body != null || ctx.status !== 404) return;
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
