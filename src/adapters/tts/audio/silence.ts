/**
 * The samples without the silence before and after the speech, keeping `padMs` of it on
 * each side. eSpeak NG ends every text with about 0.3 s of silence, which would make short
 * texts sound (and measure) longer than they are.
 */
export function trimSilence(samples: Int16Array, sampleRate: number, padMs = 60, threshold = 64): Int16Array {
  const pad = Math.round((sampleRate * padMs) / 1000);
  let first = 0;
  while (first < samples.length && Math.abs(samples[first]!) <= threshold) first++;
  // Nothing audible (a text of punctuation, say): a moment of silence is still a valid file.
  if (first === samples.length) return new Int16Array(pad);
  let last = samples.length - 1;
  while (last > first && Math.abs(samples[last]!) <= threshold) last--;
  return samples.subarray(Math.max(0, first - pad), Math.min(samples.length, last + 1 + pad));
}
