import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { espeakFiles } from '../../../src/adapters/tts/espeak/engine-files.js';
import { EspeakWorkerPool } from '../../../src/adapters/tts/espeak/espeak-worker-pool.js';
import { SpeechEngineFailedError } from '../../../src/domain/errors.js';
import { parseWav } from '../../support/audio.js';

const wavArgs = (voice: string) => ['-b', '1', '-v', voice, '-s', '175', '-w', '/output.wav', '-f', '/input.txt'];
const digest = (bytes: Uint8Array | null) => createHash('sha256').update(bytes ?? new Uint8Array(0)).digest('hex');

/** The WAV a new instance of the eSpeak NG program makes, run once the package's own way (as each run did before). */
async function freshInstanceWav(args: string[], input: string): Promise<Uint8Array> {
  const createEspeak = ((await import(espeakFiles().moduleUrl)) as { default: (module: object) => Promise<{ FS: { readFile(path: string): Uint8Array } }> }).default;
  const instance = await createEspeak({
    arguments: args,
    preRun: [(module: { FS: { writeFile(path: string, data: string): void } }) => module.FS.writeFile('/input.txt', input)],
    print: () => {},
    printErr: () => {},
    quit: (_code: number, toThrow: Error) => {
      throw toThrow;
    },
  });
  return instance.FS.readFile('/output.wav');
}

const LONG = 'The weather is lovely today, and the forecast says it will stay that way. '.repeat(30);

describe('eSpeak NG worker pool (WebAssembly in worker threads)', function () {
  this.timeout(60_000);
  let pool: EspeakWorkerPool;
  afterEach(() => pool.close());

  it('warmUp starts every worker and loads its engines; speech afterwards starts and loads nothing more', async () => {
    pool = new EspeakWorkerPool(2);
    await pool.warmUp();
    expect(pool.stats).to.deep.equal({ workersStarted: 2, enginesLoaded: 2 });
    const [speech, other] = await Promise.all([pool.espeak(wavArgs('gmw/en-US'), 'Hello there.'), pool.espeak(wavArgs('roa/fr'), 'Bonjour.')]);
    await pool.mp3(new Int16Array(22_050), 22_050, 64);
    expect(parseWav(speech.output!).durationS).to.be.above(0.3);
    expect(parseWav(other.output!).durationS).to.be.above(0.3);
    expect(pool.stats).to.deep.equal({ workersStarted: 2, enginesLoaded: 2 });
  });

  it('each run starts from the same state: a text speaks the same whatever the worker spoke before, as a new instance of the program does', async () => {
    pool = new EspeakWorkerPool(1);
    const first = await pool.espeak(wavArgs('gmw/en-US'), 'Dr. Smith measured 3.14 litres of water before noon!');
    await pool.espeak(wavArgs('gmw/en-GB-x-rp+m3'), 'Something else entirely, spoken slowly.');
    await pool.espeak(['--voices'], '');
    const again = await pool.espeak(wavArgs('gmw/en-US'), 'Dr. Smith measured 3.14 litres of water before noon!');
    expect(pool.stats.workersStarted).to.equal(1);
    expect(digest(again.output)).to.equal(digest(first.output));
    const fresh = await freshInstanceWav(wavArgs('gmw/en-US'), 'Dr. Smith measured 3.14 litres of water before noon!');
    expect(digest(fresh)).to.equal(digest(first.output));
    const variant = await pool.espeak(wavArgs('gmw/en-GB-x-rp+m3'), 'Something else entirely, spoken slowly.');
    expect(digest(variant.output)).to.equal(digest(await freshInstanceWav(wavArgs('gmw/en-GB-x-rp+m3'), 'Something else entirely, spoken slowly.')));
  });

  it('a voice named with capitals is found (gmw/en-US, with a variant too), and an unknown one still fails as before', async () => {
    pool = new EspeakWorkerPool(1);
    const plain = await pool.espeak(wavArgs('gmw/en-US'), 'One two three.');
    const variant = await pool.espeak(wavArgs('gmw/en-US+f3'), 'One two three.');
    expect(plain.status).to.equal(0);
    expect(variant.status).to.equal(0);
    expect(digest(variant.output)).not.to.equal(digest(plain.output));
    const unknown = await pool.espeak(wavArgs('no-such-voice'), 'One two three.');
    expect(unknown.stderr.join(' ')).to.match(/voice/i);
  });

  it('queued jobs go by order, then first come: a first part\'s encoding before a later part\'s speech', async () => {
    pool = new EspeakWorkerPool(1);
    await pool.warmUp();
    const finished: string[] = [];
    const busy = pool.espeak(wavArgs('gmw/en-US'), LONG).then(() => finished.push('busy'));
    const later = pool.espeak(wavArgs('gmw/en-US'), 'The third part.', undefined, 2).then(() => finished.push('speech of part 2'));
    const sooner = pool.espeak(wavArgs('gmw/en-US'), 'The second part.', undefined, 1).then(() => finished.push('speech of part 1'));
    const encoding = pool.mp3(new Int16Array(22_050), 22_050, 64, undefined, 0).then(() => finished.push('encoding of part 0'));
    await Promise.all([busy, later, sooner, encoding]);
    expect(finished).to.deep.equal(['busy', 'encoding of part 0', 'speech of part 1', 'speech of part 2']);
  });

  it('once warm, a worker stopped mid-job is replaced at once, engines loaded, ready for the next', async () => {
    pool = new EspeakWorkerPool(1);
    await pool.warmUp();
    const controller = new AbortController();
    const reason = new Error('client gone');
    const stopped = pool.espeak(wavArgs('gmw/en-US'), LONG.repeat(3), controller.signal);
    setTimeout(() => controller.abort(reason), 20);
    expect(await stopped.then(() => null, (error: unknown) => error)).to.equal(reason);
    expect(pool.stats.workersStarted).to.equal(2);
    await pool.warmUp();
    expect(pool.stats).to.deep.equal({ workersStarted: 2, enginesLoaded: 2 });
    expect((await pool.espeak(wavArgs('gmw/en-US'), 'Still here.')).status).to.equal(0);
  });

  it('keeps the process alive while warming up, not once its workers are idle', () => {
    const poolModule = new URL('../../../src/adapters/tts/espeak/espeak-worker-pool.ts', import.meta.url).href;
    const script = `import { EspeakWorkerPool } from ${JSON.stringify(poolModule)}; const pool = new EspeakWorkerPool(2); await pool.warmUp(); console.log(JSON.stringify(pool.stats));`;
    const file = join(mkdtempSync(join(tmpdir(), 'pool-')), 'warm-up.mts');
    writeFileSync(file, script);
    const run = spawnSync(process.execPath, ['--import', 'tsx', file], { encoding: 'utf8', timeout: 50_000 });
    expect(run.status, run.stderr).to.equal(0); // exited by itself: idle workers hold nothing open
    expect(JSON.parse(run.stdout)).to.deep.equal({ workersStarted: 2, enginesLoaded: 2 });
    pool = new EspeakWorkerPool(1);
  });

  it('refuses work once closed', async () => {
    pool = new EspeakWorkerPool(1);
    pool.close();
    const failure = await pool.espeak(['--voices'], '').then(() => null, (error: unknown) => error);
    expect(failure).to.be.instanceOf(SpeechEngineFailedError);
    expect(await pool.warmUp().then(() => null, (error: unknown) => error)).to.be.instanceOf(SpeechEngineFailedError);
  });
});
