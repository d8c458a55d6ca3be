import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readDraft } from '@/lib/drafts';
import { renderWithRouter } from '@/testing/render';
import type { SnmpTrapsView } from '../api/snmp-traps';
import {
  SnmpTrapsForm,
  toFormValues,
  toSnmpTrapsBody,
  type SnmpTrapsFormValues,
} from './snmp-traps-form';

const view: SnmpTrapsView = {
  engineId: '80007ed905a1b2c3d4e5f60718',
  destinations: [
    { host: '192.0.2.10', port: 162, version: 'v2c', communitySet: true },
    {
      host: '192.0.2.11',
      port: 10162,
      version: 'v3',
      user: 'nms',
      securityLevel: 'authPriv',
      authProtocol: 'sha256',
      authKeySet: true,
      privProtocol: 'aes',
      privKeySet: true,
    },
  ],
};

/** The PUTs the form sends, answered by `answer`. */
function stubApi(answer: (body: unknown) => Response) {
  const sent: unknown[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (_url: string, init: RequestInit = {}) => {
      const body = JSON.parse(String(init.body)) as unknown;
      sent.push(body);
      return answer(body);
    }),
  );
  return sent;
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', etag: '"snmp-2"' },
  });

afterEach(() => vi.unstubAllGlobals());

describe('SnmpTrapsForm', () => {
  it('shows each destination labelled, secrets only as set, and the engine ID', () => {
    renderWithRouter(
      <SnmpTrapsForm view={view} etag='"snmp-1"' readOnly={false} onReload={vi.fn()} />,
    );
    expect(screen.getByRole('region', { name: 'SNMP Traps' })).toBeInTheDocument();
    expect(screen.getByLabelText('SNMPv3 engine ID')).toHaveTextContent(view.engineId);
    expect(screen.getByLabelText(/^Address, destination 1/)).toHaveValue('192.0.2.10');
    const community = screen.getByLabelText(/^Community, destination 1/);
    expect(community).toHaveValue('');
    expect(community).toHaveAttribute('type', 'password');
    expect(community).toHaveAttribute('placeholder', 'set (leave empty to keep)');
    expect(screen.getByLabelText(/^User, destination 2/)).toHaveValue('nms');
    expect(screen.getByLabelText(/^Security level, destination 2/)).toHaveValue('authPriv');
    expect(screen.getByLabelText(/^Privacy protocol, destination 2/)).toHaveValue('aes');
  });

  it('adds a destination from the keyboard and sends only what its version uses', async () => {
    const sent = stubApi((body) =>
      json(200, {
        engineId: view.engineId,
        destinations: (body as { destinations: unknown[] }).destinations.map(() => ({
          host: '192.0.2.10',
          port: 162,
          version: 'v2c',
          communitySet: true,
        })),
      }),
    );
    const { user } = renderWithRouter(
      <SnmpTrapsForm view={view} etag='"snmp-1"' readOnly={false} onReload={vi.fn()} />,
    );
    screen.getByRole('button', { name: 'Add trap destination' }).focus();
    await user.keyboard('{Enter}');
    const third = screen.getByRole('group', { name: 'Trap destination 3' });
    await user.type(within(third).getByLabelText(/^Address/), '192.0.2.12');
    await user.selectOptions(within(third).getByLabelText(/^SNMP version/), 'v3');
    await user.type(within(third).getByLabelText(/^User/), 'ops');
    await user.selectOptions(within(third).getByLabelText(/^Security level/), 'authNoPriv');
    await user.type(within(third).getByLabelText(/^Auth key/), 'auth-pass-1');
    expect(within(third).queryByLabelText(/^Privacy key/)).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Save SNMP traps' }));
    expect(await screen.findByText('SNMP trap destinations saved: 3')).toBeInTheDocument();
    expect(sent).toEqual([
      {
        destinations: [
          { host: '192.0.2.10', port: 162, version: 'v2c' },
          {
            host: '192.0.2.11',
            port: 10162,
            version: 'v3',
            user: 'nms',
            securityLevel: 'authPriv',
            authProtocol: 'sha256',
            privProtocol: 'aes',
          },
          {
            host: '192.0.2.12',
            port: 162,
            version: 'v3',
            user: 'ops',
            securityLevel: 'authNoPriv',
            authProtocol: 'sha256',
            authKey: 'auth-pass-1',
            privProtocol: null,
          },
        ],
      },
    ]);
  });

  it('keeps a new destination quiet until the operator has been in it', async () => {
    const { user } = renderWithRouter(
      <SnmpTrapsForm
        view={{ ...view, destinations: [] }}
        etag='"snmp-1"'
        readOnly={false}
        onReload={vi.fn()}
      />,
    );
    await user.click(screen.getByRole('button', { name: 'Add trap destination' }));
    const added = screen.getByRole('group', { name: 'Trap destination 1' });
    const address = within(added).getByLabelText(/^Address/);
    // Let react-hook-form's check after Add run.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(added.querySelectorAll('[aria-invalid="true"]')).toHaveLength(0);
    expect(address).not.toHaveAttribute('aria-invalid', 'true');
    expect(added.querySelector('.field-error')).toBeNull();
    // Left empty, it speaks.
    await user.click(address);
    await user.tab();
    expect(address).toHaveAttribute('aria-invalid', 'true');
  });

  it('shows the server’s refusal beside the field it names', async () => {
    stubApi(() =>
      json(400, {
        error: {
          code: 'VALIDATION',
          message: 'Community is required',
          fields: [{ path: 'destinations.0.community', message: 'Community is required' }],
        },
      }),
    );
    const { user } = renderWithRouter(
      <SnmpTrapsForm view={view} etag='"snmp-1"' readOnly={false} onReload={vi.fn()} />,
    );
    await user.clear(screen.getByLabelText(/^UDP port, destination 1/));
    await user.type(screen.getByLabelText(/^UDP port, destination 1/), '1162');
    await user.click(screen.getByRole('button', { name: 'Save SNMP traps' }));
    const community = screen.getByLabelText(/^Community, destination 1/);
    expect(await screen.findByText(/server found a problem/)).toBeInTheDocument();
    expect(community).toHaveAttribute('aria-invalid', 'true');
    expect(community).toHaveAccessibleDescription(expect.stringContaining('Community is required'));
  });

  it('loads the version someone else saved meanwhile, and keeps the operator’s typing apart from the options’, secrets left out', async () => {
    stubApi(() =>
      json(412, {
        error: { code: 'PRECONDITION_FAILED', message: 'Changed by someone else', fields: [] },
      }),
    );
    const onReload = vi.fn();
    const { user } = renderWithRouter(
      <SnmpTrapsForm view={view} etag='"snmp-1"' readOnly={false} onReload={onReload} />,
    );
    await user.clear(screen.getByLabelText(/^Address, destination 1/));
    await user.type(screen.getByLabelText(/^Address, destination 1/), '192.0.2.20');
    await user.type(screen.getByLabelText(/^Community, destination 1/), 'typed-community');
    const kept = readDraft('/#snmp-traps')?.mine as SnmpTrapsFormValues;
    expect(kept.destinations[0]).toMatchObject({ host: '192.0.2.20' });
    expect(JSON.stringify(sessionStorage)).not.toContain('typed-community');
    expect(readDraft('/')).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Save SNMP traps' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Someone else saved the SNMP trap destinations after you opened it',
    );
    expect(onReload).toHaveBeenCalledTimes(1);
  });

  it('checks a field as the schema does when it is left', async () => {
    const { user } = renderWithRouter(
      <SnmpTrapsForm view={view} etag='"snmp-1"' readOnly={false} onReload={vi.fn()} />,
    );
    await user.type(screen.getByLabelText(/^Address, destination 1/), 'x');
    await user.tab();
    expect(
      screen.getByText('Trap destination address must be an IPv4 or IPv6 address'),
    ).toBeInTheDocument();
  });

  it('offers no control that changes them to a non-admin', () => {
    renderWithRouter(<SnmpTrapsForm view={view} etag='"snmp-1"' readOnly onReload={vi.fn()} />);
    expect(screen.queryByRole('button', { name: 'Save SNMP traps' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Add trap destination' })).toBeNull();
    expect(screen.getByLabelText(/^Address, destination 1/)).toBeDisabled();
  });

  it('turns the view into form values and back without any secret', () => {
    expect(toSnmpTrapsBody(toFormValues(view))).toEqual({
      destinations: [
        { host: '192.0.2.10', port: 162, version: 'v2c', community: undefined },
        {
          host: '192.0.2.11',
          port: 10162,
          version: 'v3',
          user: 'nms',
          securityLevel: 'authPriv',
          authProtocol: 'sha256',
          authKey: undefined,
          privProtocol: 'aes',
          privKey: undefined,
        },
      ],
    });
  });
});
