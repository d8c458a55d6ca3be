import { expect } from 'vitest';

/**
 * χ² limits at a false-alarm rate of one in a million, by degrees of freedom (servers − 1).
 * Source ports are drawn by the kernel, so which server a connection lands on is random; a fixed
 * "within N points" bound fails by chance every few hundred runs, this one about never.
 */
const CHI_SQUARE_LIMIT: Record<number, number> = { 1: 23.93, 2: 27.63, 3: 30.66, 4: 33.38 };

/**
 * Asserts connections were spread over the servers by their weights: a χ² goodness-of-fit test
 * of the counts against the weight shares. With a few hundred connections it still tells weights
 * 1/2/1 from an even spread (χ² ≈ 44 for 400 connections against a limit of 27.6).
 */
export function expectSpreadByWeights(
  tally: Record<string, number> | Map<string, number>,
  weights: Record<string, number>,
) {
  const counts = tally instanceof Map ? Object.fromEntries(tally) : tally;
  const strays = Object.keys(counts).filter((name) => !(name in weights));
  expect(strays, 'connections answered by no weighted server').toEqual([]);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const weightSum = Object.values(weights).reduce((a, b) => a + b, 0);
  let chiSquare = 0;
  for (const [name, weight] of Object.entries(weights)) {
    const expected = (total * weight) / weightSum;
    chiSquare += ((counts[name] ?? 0) - expected) ** 2 / expected;
  }
  const limit = CHI_SQUARE_LIMIT[Object.keys(weights).length - 1];
  if (limit === undefined) throw new Error('expectSpreadByWeights: 2 to 5 servers');
  expect(
    chiSquare,
    `${JSON.stringify(counts)} is not spread by weights ${JSON.stringify(weights)}`,
  ).toBeLessThan(limit);
}
