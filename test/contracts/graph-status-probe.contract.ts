import { expect } from 'chai';
import type { GraphStatus, GraphStatusProbe } from '../../src/application/ports/graph-status-probe.js';

export interface GraphStatusProbeSubject {
  probe: GraphStatusProbe;
  /** The state this subject's world should produce. */
  expected: GraphStatus['state'];
  /** The time-out the probe was configured with; every check must answer within it. */
  timeoutMs: number;
  /** Passwords (and the like) the probe was given: no answer may contain them. */
  secrets: string[];
  close(): Promise<void>;
}

export type MakeGraphStatusProbe = () => Promise<GraphStatusProbeSubject>;

/** Scheduling slack on a loaded machine (a worker thread may be starting). */
const SLACK_MS = 400;

/** Exactly one of the port's three shapes, with nothing else in it. */
export function expectGraphStatusShape(status: GraphStatus): void {
  switch (status.state) {
    case 'connected':
      expect(Object.keys(status).sort()).to.deep.equal(['latencyMs', 'serverVersion', 'state']);
      expect(status.serverVersion).to.be.a('string').and.not.equal('');
      expect(status.latencyMs).to.be.a('number').and.at.least(0);
      break;
    case 'disabled':
    case 'unreachable':
      expect(Object.keys(status).sort()).to.deep.equal(['detail', 'state']);
      expect(status.detail).to.be.a('string').and.not.equal('');
      break;
    default:
      expect.fail(`unknown state in ${JSON.stringify(status)}`);
  }
}

export function graphStatusProbeContract(make: MakeGraphStatusProbe): void {
  describe('GraphStatusProbe contract', () => {
    let subject: GraphStatusProbeSubject;
    beforeEach(async () => {
      subject = await make();
    });
    afterEach(() => subject.close());

    const timedCheck = async () => {
      const started = performance.now();
      const status = await subject.probe.check();
      return { status, ms: performance.now() - started };
    };

    it('answers with one of the three shapes, the expected one', async () => {
      const { status } = await timedCheck();
      expectGraphStatusShape(status);
      expect(status.state).to.equal(subject.expected);
    });

    it('answers within its time-out, the first time and again', async () => {
      for (let i = 0; i < 2; i++) {
        const { status, ms } = await timedCheck();
        expect(status.state).to.equal(subject.expected);
        expect(ms, `check ${i + 1} took ${Math.round(ms)} ms`).to.be.below(subject.timeoutMs + SLACK_MS);
      }
    });

    it('answers concurrent checks alike', async () => {
      const statuses = await Promise.all([1, 2, 3].map(() => subject.probe.check()));
      for (const status of statuses) expectGraphStatusShape(status);
      expect(new Set(statuses.map((s) => s.state))).to.deep.equal(new Set([subject.expected]));
    });

    it('never includes a password it was given', async () => {
      const text = JSON.stringify(await subject.probe.check());
      for (const secret of subject.secrets) expect(text).not.to.include(secret);
    });
  });
}
