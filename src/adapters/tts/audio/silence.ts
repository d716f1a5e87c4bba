/** How much of the silence around speech to keep: milliseconds at the start and at the end. */
export interface SilenceLimits {
  startMs: number;
  endMs: number;
}

const THRESHOLD = 64;

/**
 * The samples with at most `startMs` of the silence before the speech and `endMs` after it.
 * eSpeak NG ends every text with about 0.3 s of silence, which would make short texts sound
 * (and measure) longer than they are; between two parts of a longer text some of it is the
 * pause between sentences, worth keeping.
 */
export function limitSilence(samples: Int16Array, sampleRate: number, { startMs, endMs }: SilenceLimits, threshold = THRESHOLD): Int16Array {
  const keep = (ms: number) => Math.round((sampleRate * ms) / 1000);
  let first = 0;
  while (first < samples.length && Math.abs(samples[first]!) <= threshold) first++;
  // Nothing audible (a text of punctuation, say): a moment of silence is still valid audio.
  if (first === samples.length) return new Int16Array(Math.min(samples.length, keep(startMs)) || keep(startMs));
  let last = samples.length - 1;
  while (last > first && Math.abs(samples[last]!) <= threshold) last--;
  return samples.subarray(Math.max(0, first - keep(startMs)), Math.min(samples.length, last + 1 + keep(endMs)));
}

/** The samples without the silence around the speech, keeping `padMs` of it on each side. */
export function trimSilence(samples: Int16Array, sampleRate: number, padMs = 60, threshold = THRESHOLD): Int16Array {
  const pad = Math.round((sampleRate * padMs) / 1000);
  const trimmed = limitSilence(samples, sampleRate, { startMs: padMs, endMs: padMs }, threshold);
  return trimmed.some((sample) => Math.abs(sample) > threshold) ? trimmed : new Int16Array(pad);
}
