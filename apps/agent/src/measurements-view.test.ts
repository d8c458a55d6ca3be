import { Engine } from '@ipfe/engine';
import { describe, expect, it } from 'vitest';
import { ByServer } from './by-server.ts';
import type { Measured } from './data-plane.ts';
import { measurementSeries, measurementsView } from './measurements-view.ts';
import { countersView } from './status-view.ts';
import { testDocument } from './testing.ts';

/** Target Set 1 (TSA 192.0.2.100, secondary 192.0.2.110) with 10.0.0.1 and 10.0.0.2; 2 on 192.0.2.101. */
const document = testDocument(4, (c) => {
  c.targetSets[0]!.secondary = { address: '192.0.2.110', activeIpfe: 'A1' };
});

/** What the kernel and direct paths count: everything. */
const counted: Measured = {
  rxBytes: new Map([
    ['192.0.2.100', 1000],
    ['192.0.2.110', 200],
  ]),
  rxSctpBytes: new Map([['192.0.2.110', 200]]),
  txBytes: new ByServer<number>()
    .set('192.0.2.100', '10.0.0.1', 600)
    .set('192.0.2.110', '10.0.0.1', 150)
    .set('192.0.2.100', '10.0.0.2', 300),
  unexpectedTcp: new Map([['192.0.2.100', 3]]),
  unexpectedSctp: new Map([['192.0.2.101', 5]]),
};

/** What the user-space path counts: its sockets' bytes. */
const sockets: Measured = {
  rxBytes: new Map([['192.0.2.100', 40]]),
  rxSctpBytes: null,
  txBytes: new ByServer<number>().set('192.0.2.100', '10.0.0.2', 40),
  unexpectedTcp: null,
  unexpectedSctp: null,
};

const engineCounters = () => new Engine(document, 0, { slot: 'A1' }).counters();

describe('the measurements an agent reports', () => {
  it('sums a Target Set’s TSAs, and each of its servers over them', () => {
    const view = measurementsView(document, engineCounters(), counted, true);
    expect(view).toEqual({
      accounting: true,
      targetSets: [
        {
          number: 1,
          rxBytes: 1200,
          rxSctpBytes: 200,
          rejected: 0,
          unexpectedTcp: 3,
          unexpectedSctp: 0,
          servers: [
            { address: '10.0.0.1', txBytes: 750 },
            { address: '10.0.0.2', txBytes: 300 },
          ],
        },
        {
          number: 2,
          rxBytes: 0,
          rxSctpBytes: 0,
          rejected: 0,
          unexpectedTcp: 0,
          unexpectedSctp: 5,
          servers: [{ address: '10.0.0.3', txBytes: 0 }],
        },
      ],
    });
  });

  it('says null for what the data path does not count, never 0', () => {
    const [ts1] = measurementsView(document, engineCounters(), sockets, true).targetSets;
    expect(ts1).toMatchObject({
      rxBytes: 40,
      rxSctpBytes: null,
      unexpectedTcp: null,
      unexpectedSctp: null,
      servers: [
        { address: '10.0.0.1', txBytes: 0 },
        { address: '10.0.0.2', txBytes: 40 },
      ],
    });
  });

  it('takes TxReject from the Target Set’s refusals for want of a server, the data path’s too', () => {
    const counters = countersView(
      engineCounters(),
      { servers: new ByServer(), refused: new Map([[1, 7]]) },
      document,
    );
    const view = measurementsView(document, counters, counted, false);
    expect(view.accounting).toBe(false);
    expect(view.targetSets.map((t) => [t.number, t.rejected])).toEqual([
      [1, 7],
      [2, 0],
    ]);
    expect(measurementsView(document, null, counted, true).targetSets[0]!.rejected).toBeNull();
  });

  it('reports no Target Set before a configuration', () => {
    expect(measurementsView(null, null, counted, true)).toEqual({
      accounting: true,
      targetSets: [],
    });
  });
});

describe('the measurements /metrics exports', () => {
  it('labels each TSA’s count with its Target Set, and leaves out what is not counted', () => {
    const series = measurementSeries(document, sockets);
    expect(series).toEqual({
      rxBytes: [{ targetSet: 1, tsa: '192.0.2.100', value: 40 }],
      rxSctpBytes: null,
      txBytes: [{ targetSet: 1, tsa: '192.0.2.100', server: '10.0.0.2', value: 40 }],
      unexpected: null,
    });
  });

  it('gives unexpected packets by protocol', () => {
    expect(measurementSeries(document, counted).unexpected).toEqual([
      { targetSet: 1, tsa: '192.0.2.100', value: 3, protocol: 'tcp' },
      { targetSet: 2, tsa: '192.0.2.101', value: 5, protocol: 'sctp' },
    ]);
  });

  it('leaves out a TSA no Target Set has any more', () => {
    const stale: Measured = { ...sockets, rxBytes: new Map([['192.0.2.199', 9]]) };
    expect(measurementSeries(document, stale).rxBytes).toEqual([]);
  });
});
