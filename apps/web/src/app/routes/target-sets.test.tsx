import { MESSAGES, optionsSchema, type TargetSetInput } from '@ipfe/schema';
import { screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it } from 'vitest';
import { removeDrafts } from '@/lib/drafts';
import { installFakeApi } from '@/testing/fake-api';
import { options, targetSetView } from '@/testing/fixtures';
import { renderApp } from '@/testing/render';

/** The message's own words: its menu trail is a link of its own. */
const BGP_MISSING = /^Active-Active needs BGP configured under/;

const withBgp = optionsSchema.parse({
  ...options,
  bgp: { asn: 65010, peers: [{ address: '192.168.10.254', asn: 65000 }] },
});

/** The fake API, and Target Set 1 saved as the real API saves it: checked against Options. */
function installApi() {
  const api = installFakeApi();
  const reads = api.fetchMock.getMockImplementation()!;
  const puts: TargetSetInput[] = [];
  api.fetchMock.mockImplementation(async (input, init = {}) => {
    const path = new URL(String(input), 'http://oam.test').pathname;
    if (init.method !== 'PUT' || path !== '/api/target-sets/1') return reads(input, init);
    api.state.log.push(`PUT ${path}`);
    const body = JSON.parse(String(init.body)) as TargetSetInput;
    puts.push(body);
    if (body.serving === 'activeActive' && api.state.options.bgp === null) {
      const refusal = { path: 'serving', message: MESSAGES.activeActiveNeedsBgp };
      return Response.json(
        { error: { code: 'INVALID', message: 'refused', fields: [refusal] } },
        { status: 422 },
      );
    }
    const saved = targetSetView(body, { options: api.state.options });
    api.state.targetSets = [saved];
    return Response.json(saved, { headers: { etag: '"ts-2"', 'x-ipfe-revision': '8' } });
  });
  return { ...api, puts };
}

const serving = () => screen.getByRole('region', { name: 'Serving' });
const ipfes = () => within(serving()).getByRole('group', { name: /Active-Active IPFEs/ });
// The lazy Edit page, and a save through the fake API, can take longer than the 1 s a `findBy`
// waits on a loaded test machine.
const patiently = { timeout: 10_000 };
const optionsReads = (log: string[]) => log.filter((l) => l === 'GET /api/options').length;

/** The operator's edits: typed values, and Target Set 1 turned active-active on A1 and A2. */
async function editToActiveActive(user: ReturnType<typeof renderApp>['user']) {
  const description = await screen.findByLabelText('Description, row 1', {}, patiently);
  await user.clear(description);
  await user.type(description, 'typed before BGP');
  await user.clear(screen.getByLabelText(/Delete Age/));
  await user.type(screen.getByLabelText(/Delete Age/), '900');
  await user.click(screen.getByRole('radio', { name: 'Hash' }));
  await user.click(within(serving()).getByRole('radio', { name: 'Active-Active' }));
  await user.click(within(ipfes()).getByRole('checkbox', { name: 'IPFE-A1' }));
  await user.click(within(ipfes()).getByRole('checkbox', { name: 'IPFE-A2' }));
}

function expectTypedValuesKept() {
  expect(screen.getByLabelText('Description, row 1')).toHaveValue('typed before BGP');
  expect(screen.getByLabelText(/Delete Age/)).toHaveValue(900);
  expect(screen.getByRole('radio', { name: 'Hash' })).toBeChecked();
  expect(within(serving()).getByRole('radio', { name: 'Active-Active' })).toBeChecked();
  expect(within(ipfes()).getByRole('checkbox', { name: 'IPFE-A1' })).toBeChecked();
  expect(within(ipfes()).getByRole('checkbox', { name: 'IPFE-A2' })).toBeChecked();
}

beforeEach(() => removeDrafts());

describe('Target Sets [Edit] when another client changes Options meanwhile', () => {
  it('applies Active-Active once an admin has configured BGP after the page opened, without a reload', async () => {
    const api = installApi();
    const { user } = renderApp('/target-sets/1/edit');
    await editToActiveActive(user);

    // An admin saves BGP in another browser; this page still holds Options without it.
    api.state.options = withBgp;
    await user.click(screen.getByRole('button', { name: 'Apply' }));

    expect(
      await screen.findByText('Target Set 1 saved as revision 8.', {}, patiently),
    ).toBeInTheDocument();
    expect(screen.queryByText(BGP_MISSING)).not.toBeInTheDocument();
    expect(api.puts).toHaveLength(1);
    expect(api.puts[0]).toMatchObject({
      algorithm: 'hash',
      serving: 'activeActive',
      activeActiveIpfes: ['A1', 'A2'],
      deleteAgeSeconds: 900,
      servers: [{ description: 'typed before BGP' }, {}],
    });
    expectTypedValuesKept();
  });

  it('still refuses it on Serving when Options read afresh have no BGP either, typed values kept', async () => {
    const api = installApi();
    const { user } = renderApp('/target-sets/1/edit');
    await editToActiveActive(user);
    const readsBefore = optionsReads(api.state.log);

    await user.click(screen.getByRole('button', { name: 'Apply' }));

    expect(await within(serving()).findByText(BGP_MISSING, {}, patiently)).toBeInTheDocument();
    expect(optionsReads(api.state.log)).toBe(readsBefore + 1);
    expect(api.puts).toHaveLength(0);
    await waitFor(() => expect(screen.getByRole('button', { name: 'Apply' })).toBeEnabled());
    expectTypedValuesKept();
  });
});
