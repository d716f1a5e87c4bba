/**
 * Changes the sample rate of 16-bit mono audio that arrives in parts (eSpeak NG's 22,050 Hz
 * to the 24 kHz of `pcm`), by linear interpolation: plenty for speech, whose energy lies far
 * below either rate's limit. It keeps its place between parts, so the parts join seamlessly.
 */
export class Resampler {
  /** Output samples made so far; the next one falls at input position produced × fromRate / toRate. */
  private produced = 0;
  /** Input samples seen in earlier parts. */
  private consumed = 0;
  /** The last of them: the left neighbour of a position that falls between two parts. */
  private previous = 0;

  constructor(
    readonly fromRate: number,
    readonly toRate: number,
  ) {}

  push(samples: Int16Array): Int16Array {
    if (this.fromRate === this.toRate) return samples;
    const last = this.consumed + samples.length - 1;
    const at = (index: number) => (index < this.consumed ? this.previous : samples[index - this.consumed]!);
    const count = Math.max(0, Math.floor((last * this.toRate) / this.fromRate) - this.produced + 1);
    const output = new Int16Array(count);
    for (let n = 0; n < count; n++) {
      const position = ((this.produced + n) * this.fromRate) / this.toRate;
      const left = Math.floor(position);
      const fraction = position - left;
      const a = at(left);
      output[n] = fraction === 0 ? a : Math.round(a + (at(left + 1) - a) * fraction);
    }
    this.produced += count;
    if (samples.length > 0) {
      this.consumed += samples.length;
      this.previous = samples[samples.length - 1]!;
    }
    return output;
  }
}
