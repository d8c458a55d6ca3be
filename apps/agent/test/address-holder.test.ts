import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { arrivals, countArrivals } from './flood/counted.ts';
import { describeLab, labMissing } from './lab.ts';
import { repoRoot, Topology } from './netns-topology.ts';

/**
 * A TSA this node lets go is announced no more and stays gone: the gratuitous ARPs it was sending
 * for it stop (their second, a second after the first, moved the neighbours back to a node that
 * no longer held the address — the clients then sent to the wrong node until their ARP entry
 * aged), and an announcement under way does not add it back.
 */
const NET = '10.231.13';
const KEPT = `${NET}.50`;
const RELEASED = `${NET}.51`;
const V6 = 'fd00:231:13::51';
const topology = new Topology(`iah${process.pid % 10000}`, {
  node: `${NET}.1`,
  peer: `${NET}.2`,
});

describeLab('the TSA addresses an agent holds', labMissing('arping', 'nft'), () => {
  beforeAll(() => {
    topology.build();
    countArrivals(
      topology,
      'peer',
      'garps',
      'input',
      { kept: `arp saddr ip ${KEPT}`, released: `arp saddr ip ${RELEASED}` },
      'arp',
    );
  });

  afterAll(() => topology.remove());

  const drive = async (...args: string[]) => {
    const driver = spawn(
      'ip',
      [
        'netns',
        'exec',
        topology.ns('node'),
        process.execPath,
        '--import',
        'tsx',
        `${repoRoot}apps/agent/test/address-holder-driver.ts`,
        ...args,
      ],
      { stdio: 'inherit' },
    );
    const [code] = (await once(driver, 'exit')) as [number | null];
    expect(code).toBe(0);
  };

  it('stops announcing an address it lets go, and announces one it keeps twice', async () => {
    await drive('release', 'eth0', KEPT, RELEASED, '300');
    // The kept address's second ARP came 1 s after its first, while the driver still ran.
    expect(arrivals(topology, 'peer', 'garps', 'arp')).toEqual({ kept: 2, released: 1 });
  }, 30_000);

  it('does not take back an IPv6 address let go while announcing it again', async () => {
    // IPv6 is announced again by deleting and adding the address (the kernel advertises it).
    await drive('announce-release', 'eth0', V6);
    expect(topology.exec('node', ['ip', '-6', 'addr', 'show', 'dev', 'eth0']).stdout).not.toContain(
      V6,
    );
  }, 30_000);
});
