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

/**
 * The ES module build of @breezystack/lamejs (LGPL-3.0). Its `require` export is a browser
 * IIFE that exports nothing under Node, so the ES module next to it is named directly.
 */
export function lameModuleUrl(): string {
  return pathToFileURL(join(dirname(require.resolve('@breezystack/lamejs')), 'lamejs.js')).href;
}
