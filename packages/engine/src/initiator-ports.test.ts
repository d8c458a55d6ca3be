import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InitiatorRoutes, PortAllocator } from './initiator-ports.ts';

const RANGE = { start: 16384, end: 16895 };

describe('PortAllocator', () => {
  it('allocates inside the range, each port once while in use', () => {
    const a = new PortAllocator(RANGE);
    const ports = new Set<number>();
    for (let i = 0; i < 512; i++) {
      const p = a.allocate();
      expect(p).not.toBeNull();
      expect(p).toBeGreaterThanOrEqual(RANGE.start);
      expect(p).toBeLessThanOrEqual(RANGE.end);
      ports.add(p ?? -1);
    }
    expect(ports.size).toBe(512);
    expect(a.allocate()).toBeNull();
  });

  it('reuses a port after its release', () => {
    const a = new PortAllocator(RANGE);
    for (let i = 0; i < 512; i++) a.allocate();
    expect(a.release(16500)).toBe(true);
    expect(a.release(16500)).toBe(false);
    expect(a.allocate()).toBe(16500);
    expect(a.release(99)).toBe(false);
  });

  it('does not hand a just-released port straight back while others are free', () => {
    const a = new PortAllocator(RANGE);
    const first = a.allocate();
    a.release(first ?? 0);
    expect(a.allocate()).not.toBe(first);
  });

  it('never gives out a port in use, whatever the sequence', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1, max: 40 }), { maxLength: 300 }), (steps) => {
        const a = new PortAllocator({ start: 20000, end: 20031 });
        const inUse = new Set<number>();
        for (const step of steps) {
          if (step < 0) {
            const p = a.allocate();
            if (inUse.size === 32) expect(p).toBeNull();
            else {
              expect(p !== null && p >= 20000 && p <= 20031 && !inUse.has(p)).toBe(true);
              inUse.add(p ?? 0);
            }
          } else {
            const port = 20000 + step;
            expect(a.release(port)).toBe(inUse.delete(port));
          }
          expect(a.inUse).toBe(inUse.size);
        }
      }),
    );
  });
});

describe('InitiatorRoutes', () => {
  it("routes every port of a server's range to that server, and no other port", () => {
    const ranges = [0, 1, 63].map((slice) => ({
      server: `10.0.0.${slice}`,
      range: { start: 16384 + slice * 512, end: 16384 + slice * 512 + 511 },
    }));
    const routes = new InitiatorRoutes([...ranges, { server: 'no-range', range: null }]);
    for (const { server, range } of ranges) {
      for (let p = range.start; p <= range.end; p++) expect(routes.route(p)).toBe(server);
    }
    expect(routes.route(16384 + 2 * 512)).toBeNull();
    expect(routes.route(3868)).toBeNull();
    expect(routes.route(49152)).toBeNull();
  });
});
