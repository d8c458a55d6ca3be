import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { agentStatus, liveServer, targetSetView } from '@/testing/fixtures';
import { renderWithRouter } from '@/testing/render';
import { TargetSetStatus } from './target-set-status';

describe('TargetSetStatus of an active-active Target Set (decision 018)', () => {
  it('names its group, and never calls the IPFE serving it a standby', () => {
    const ts = targetSetView({
      number: 1,
      family: 'ipv4',
      algorithm: 'hash',
      serving: 'activeActive',
      activeActiveIpfes: ['A1', 'A2'],
      primary: { address: '192.168.10.100', activeIpfe: 'A1' },
      servers: [{ address: '192.168.10.11' }],
    });
    const live = agentStatus([liveServer('192.168.10.11', { active: 1 })]).targetSets[0]!;
    renderWithRouter(
      <TargetSetStatus
        ts={{ ...ts, owner: 'A2', activeBindings: { available: 1, total: 1 } }}
        live={live}
        labels={new Map()}
        leastLoadThreshold={0}
      />,
    );
    const panel = screen.getByRole('region', { name: /Target Set 1/ });
    expect(panel).toHaveTextContent('Owner IPFE-A2 active-active: IPFE-A1, IPFE-A2');
    expect(panel).not.toHaveTextContent('standby serving');
  });
});
