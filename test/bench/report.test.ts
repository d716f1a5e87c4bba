import { expect } from 'chai';
import { formatSection, formatTargets, measureOf, pairedRatioOf, ratioOf, targetMet, type Row } from '../../bench/support/report.js';

const figure = (label: string, median: number) => ({ label, measure: measureOf([median]), unit: 'req/s' });

describe('bench: the report', () => {
  it('summarises samples as their median and spread', () => {
    expect(measureOf([5, 1, 3])).to.deep.equal({ median: 3, min: 1, max: 5, samples: 3 });
    expect(measureOf([4, 1, 3, 2]).median).to.equal(2.5);
    expect(() => measureOf([])).to.throw();
  });

  it('judges a target on the ratio of the figure to its baseline, at either bound', () => {
    const row = (subject: number, target: Row['target']): Row => ({ figure: 'f', subject: figure('a', subject), baseline: figure('b', 100), target });
    expect(ratioOf(row(80, undefined))).to.equal(0.8);
    expect(targetMet(row(80, { text: 't', atLeast: 0.8 }))).to.equal(true);
    expect(targetMet(row(79, { text: 't', atLeast: 0.8 }))).to.equal(false);
    expect(targetMet(row(120, { text: 't', atMost: 1.2 }))).to.equal(true);
    expect(targetMet(row(121, { text: 't', atMost: 1.2 }))).to.equal(false);
    expect(targetMet(row(50, undefined))).to.equal(null);
  });

  it('takes paired samples as the ratio of each pair, which then judges the target and is shown with its spread', () => {
    // Rounds drift (100, 200, 150): the subject is 0.9x its baseline in each, whatever the medians say.
    const subject = [90, 180, 135];
    const baseline = [100, 200, 150];
    expect(pairedRatioOf(subject, baseline)).to.deep.include({ min: 0.9, max: 0.9, samples: 3 });
    expect(pairedRatioOf(subject, baseline).median).to.be.closeTo(0.9, 1e-12);
    expect(() => pairedRatioOf([1, 2], [1])).to.throw();
    const rates = (label: string, values: number[]) => ({ label, measure: measureOf(values), unit: 'req/s' });
    const row: Row = {
      figure: 'f',
      subject: rates('a', [80, 180, 135]),
      baseline: rates('b', baseline),
      pairedRatio: pairedRatioOf([80, 180, 135], baseline),
      target: { text: 't', atLeast: 0.85 },
    };
    expect(ratioOf(row)).to.equal(0.9);
    expect(targetMet(row)).to.equal(true);
    expect(formatSection({ name: 's', heading: 'h', rows: [row] })).to.include('0.90× [0.80–0.90] of 3 pairs');
  });

  it('judges a bound on the figure itself (under 300 ms) on its median, whatever the ratio', () => {
    const ms = (label: string, median: number) => ({ label, measure: measureOf([median]), unit: 'ms' });
    const row = (subject: number): Row => ({ figure: 'first byte', subject: ms('service', subject), baseline: ms('native', 10), target: { text: 'first byte', valueBelow: 300 } });
    expect(targetMet(row(299))).to.equal(true);
    expect(targetMet(row(300))).to.equal(false);
    expect(formatTargets([{ name: 's', heading: 'h', rows: [row(420)] }])).to.match(/MISSED\s+first byte \(< 300 ms\): 420 ms/);
  });

  it('names every target met or missed, with its ratio', () => {
    const rows: Row[] = [
      { figure: 'x', subject: figure('a', 40), baseline: figure('b', 100), target: { text: 'x fast enough', atLeast: 0.5 } },
      { figure: 'y', subject: figure('a', 60), baseline: figure('b', 100), target: { text: 'y fast enough', atLeast: 0.5 } },
      { figure: 'z', subject: figure('a', 60), baseline: figure('b', 100) },
    ];
    const text = formatTargets([{ name: 's', heading: 'h', rows }]);
    expect(text).to.match(/^targets: 1 of 2 met/);
    expect(text).to.match(/MISSED\s+x fast enough \(≥ 0.5×\): 0.40×/);
    expect(text).to.match(/met\s+y fast enough \(≥ 0.5×\): 0.60×/);
  });
});
