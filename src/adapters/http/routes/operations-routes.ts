import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { send } from '@koa/send';
import type { Metrics } from '../../metrics/metrics.js';

/** The API explorer may run swagger-ui's own script and styles (it sets inline styles), nothing else. */
const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const SWAGGER_UI_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png']);

const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Assistant backend: API explorer</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css">
    <link rel="icon" href="/docs/favicon-32x32.png">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>
`;

const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n`;

/** GET /openapi.json, GET /docs (swagger-ui from its npm package, no CDN), GET /metrics (behind `metricsGuards`: its token). */
export function operationsRoutes(router: Router, document: object, metrics: Metrics | undefined, metricsGuards: Middleware[] = []): void {
  const body = JSON.stringify(document);
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = body;
  });

  router.get('/docs', (ctx) => {
    ctx.set('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    ctx.type = 'text/html';
    ctx.body = DOCS_PAGE;
  });
  router.get('/docs/init.js', (ctx) => {
    ctx.type = 'text/javascript';
    ctx.body = DOCS_INIT;
  });
  router.get('/docs/:file', async (ctx, next) => {
    if (!SWAGGER_UI_FILES.has(ctx.params.file!)) return next();
    ctx.set('Cache-Control', 'public, max-age=86400');
    await send(ctx, ctx.params.file!, { root: SWAGGER_UI_DIR });
  });

  if (metrics) {
    router.get('/metrics', ...metricsGuards, async (ctx) => {
      ctx.type = metrics.registry.contentType;
      ctx.body = await metrics.registry.metrics();
    });
  }
}
