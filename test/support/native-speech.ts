import { findNativeLame } from '../../src/adapters/tts/audio/mp3-encoder.js';
import { findNativeEspeak } from '../../src/adapters/tts/espeak/native-espeak-runner.js';
import type { NativeProgram } from '../../src/adapters/tts/native-program.js';
import { missingTool } from './required-tool.js';

let found: { espeak: NativeProgram | null; lame: NativeProgram | null } | undefined;

/**
 * Debian's espeak-ng and lame programs, for the tests of the native speech engine; without them
 * the suite is skipped with the command that installs them (and fails under CI, which has them).
 */
export function requireNativeSpeech(context: Mocha.Context): { espeak: NativeProgram; lame: NativeProgram } {
  found ??= { espeak: findNativeEspeak(), lame: findNativeLame() };
  const { espeak, lame } = found;
  if (espeak && lame) return { espeak, lame };
  const missing = [espeak ? null : 'espeak-ng', lame ? null : 'lame'].filter(Boolean).join(' and ');
  return missingTool(context, `${missing} ${missing.includes(' and ') ? 'are' : 'is'} not installed`, 'install them with apt-get install -y espeak-ng lame');
}
