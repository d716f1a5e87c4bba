/**
 * What sections return and how the runner prints it: every figure next to the baseline it
 * was measured against in the same run, their ratio, and the target on that ratio, if any.
 */
export interface Measure {
  median: number;
  min: number;
  max: number;
  /** How many samples the median is of. */
  samples: number;
}

export interface Figure {
  /** Who was measured: "service", "hand-written", "bare Koa", "1,000 messages". */
  label: string;
  measure: Measure;
  unit: string;
  /** Shown after the figure, e.g. "12 statements" or "3 failed". */
  note?: string;
}

export interface Target {
  /** The target in words, e.g. "saveMessage on PostgreSQL at least 0.8x the hand-written server". */
  text: string;
  atLeast?: number;
  atMost?: number;
  /** A bound on the subject's own median, in its unit (e.g. 300 for "under 300 ms"), not on the ratio. */
  valueBelow?: number;
}

export interface Row {
  figure: string;
  subject: Figure;
  baseline?: Figure;
  /**
   * The ratio of each pair of samples taken together (subject and baseline in the same round, one
   * right after the other), summarised. When given it is the row's ratio: pairing cancels the
   * machine's drift from round to round, which a ratio of the two medians keeps.
   */
  pairedRatio?: Measure;
  /** A bound on subject / baseline. */
  target?: Target;
}

export interface SectionReport {
  name: string;
  /** One line saying what was measured and how. */
  heading: string;
  rows: Row[];
}

export function measureOf(samples: number[]): Measure {
  if (samples.length === 0) throw new Error('no samples to summarise');
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { median, min: sorted[0]!, max: sorted.at(-1)!, samples: sorted.length };
}

export const ratioOf = (row: Row): number | null => row.pairedRatio?.median ?? (row.baseline ? row.subject.measure.median / row.baseline.measure.median : null);

/** subject[i] / baseline[i] for each pair, summarised. */
export function pairedRatioOf(subject: number[], baseline: number[]): Measure {
  if (subject.length !== baseline.length) throw new Error(`unpaired samples: ${subject.length} against ${baseline.length}`);
  return measureOf(subject.map((value, i) => value / baseline[i]!));
}

export function targetMet(row: Row): boolean | null {
  const ratio = ratioOf(row);
  const { target } = row;
  if (!target) return null;
  if (target.valueBelow !== undefined) return row.subject.measure.median < target.valueBelow;
  if (ratio === null) return null;
  return (target.atLeast === undefined || ratio >= target.atLeast) && (target.atMost === undefined || ratio <= target.atMost);
}

function number(value: number): string {
  const digits = value >= 100 || Number.isInteger(value) ? 0 : value >= 10 ? 1 : 2;
  return value.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function figureText(figure: Figure): string {
  const { median, min, max } = figure.measure;
  const spread = min === max ? '' : ` [${number(min)}–${number(max)}]`;
  return `${figure.label} ${number(median)} ${figure.unit}${spread}${figure.note ? ` (${figure.note})` : ''}`;
}

function targetText(target: Target, unit = ''): string {
  if (target.valueBelow !== undefined) return `< ${number(target.valueBelow)} ${unit}`.trim();
  return [target.atLeast === undefined ? '' : `≥ ${target.atLeast}×`, target.atMost === undefined ? '' : `≤ ${target.atMost}×`].join(' ').trim();
}

/** A section as a table: figure, subject, baseline, ratio, target. */
export function formatSection(section: SectionReport): string {
  const cells = section.rows.map((row) => {
    const ratio = ratioOf(row);
    const met = targetMet(row);
    return [
      row.figure,
      figureText(row.subject),
      row.baseline ? figureText(row.baseline) : '',
      ratio === null ? '' : `${ratio.toFixed(2)}×${row.pairedRatio ? ` [${row.pairedRatio.min.toFixed(2)}–${row.pairedRatio.max.toFixed(2)}] of ${row.pairedRatio.samples} pairs` : ''}`,
      row.target ? `${targetText(row.target, row.subject.unit)} ${met ? 'met' : 'MISSED'}` : '',
    ];
  });
  const header = ['figure', 'measured', 'against', 'ratio', 'target'];
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => line[column]!.length)));
  const line = (values: string[]) => `  ${values.map((value, column) => value.padEnd(widths[column]!)).join('  ')}`.trimEnd();
  return [`${section.name}: ${section.heading}`, line(header), ...cells.map(line)].join('\n');
}

/** The closing block: every target of every section, met or missed, with its ratio. */
export function formatTargets(sections: SectionReport[]): string {
  const lines: string[] = [];
  let met = 0;
  let total = 0;
  for (const row of sections.flatMap((section) => section.rows)) {
    const verdict = targetMet(row);
    if (verdict === null) continue;
    total++;
    if (verdict) met++;
    const value = row.target!.valueBelow !== undefined ? `${number(row.subject.measure.median)} ${row.subject.unit}` : `${ratioOf(row)!.toFixed(2)}×`;
    lines.push(`  ${verdict ? 'met   ' : 'MISSED'}  ${row.target!.text} (${targetText(row.target!, row.subject.unit)}): ${value}`);
  }
  return [`targets: ${met} of ${total} met`, ...lines].join('\n');
}
