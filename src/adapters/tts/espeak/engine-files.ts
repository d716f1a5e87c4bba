import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/*
 * Where the engines' packages live, looked up only when the embedded engine is used (with
 * TTS_PROVIDER=openai they need not even be installed). Resolved with require.resolve, not
 * import.meta.resolve, so this also works where TypeScript runs compiled to CommonJS (tsx
 * under mocha's require).
 */
const require = createRequire(import.meta.url);

export interface EspeakFiles {
  moduleUrl: string;
  wasmPath: string;
  version: string;
}

let espeak: EspeakFiles | undefined;

/** The espeak-ng package (GPL-3.0-or-later): its ES module, its WebAssembly and its version. */
export function espeakFiles(): EspeakFiles {
  if (!espeak) {
    const main = require.resolve('espeak-ng');
    const { version } = require('espeak-ng/package.json') as { version: string };
    espeak = { moduleUrl: pathToFileURL(main).href, wasmPath: join(dirname(main), 'espeak-ng.wasm'), version };
  }
  return espeak;
}

let lame: { moduleUrl: string; version: string } | undefined;

/**
 * LAME compiled to WebAssembly (the `wasm-media-encoders` package: MIT, with LAME under the
 * LGPL): its ES module, which carries the WebAssembly, and its version.
 */
export function wasmLameFiles(): { moduleUrl: string; version: string } {
  if (!lame) {
    const dist = dirname(require.resolve('wasm-media-encoders'));
    const { version } = JSON.parse(readFileSync(join(dist, '..', 'package.json'), 'utf8')) as { version: string };
    lame = { moduleUrl: pathToFileURL(join(dist, 'es', 'index.mjs')).href, version };
  }
  return lame;
}
