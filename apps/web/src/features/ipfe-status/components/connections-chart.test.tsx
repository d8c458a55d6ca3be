import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ConnectionsChart } from './connections-chart';

describe('ConnectionsChart', () => {
  it('leaves room for the longest label before the bars, and shortens only a very long one', () => {
    const long = 'a-very-long-application-server-name fd00:20::13';
    render(
      <ConnectionsChart
        title="Open connections per server"
        bars={[
          { label: 'diameter-mp1 fd00:20::11', value: 3 },
          { label: long, value: null },
        ]}
      />,
    );
    const chart = screen.getByRole('img', { name: 'Open connections per server' });
    const labels = Array.from(chart.querySelectorAll('text.chart-label'));
    expect(labels[0]).toHaveTextContent(/^diameter-mp1 fd00:20::11$/);
    expect(labels[2]!.textContent).toMatch(/^a-very-long-application-server-name fd0…$/);
    // The labels end where the bars start: their right edge is at the label column's width.
    const labelWidth = Number(labels[0]!.getAttribute('x')) + 6;
    expect(labelWidth).toBeGreaterThanOrEqual(40 * 7);
    expect(chart).toHaveAccessibleDescription(`diameter-mp1 fd00:20::11: 3; ${long}: unknown`);
  });
});
