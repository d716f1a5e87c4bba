import { expect } from 'chai';
import { formatTargets, measureOf, ratioOf, targetMet, type Row } from '../../bench/support/report.js';

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
