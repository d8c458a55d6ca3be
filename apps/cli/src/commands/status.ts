import type { IpfeView } from '@ipfe/schema';
import type { Command } from '../command.ts';
import { EXIT } from '../errors.ts';

const cell = (value: string | number | null) => (value === null ? '-' : String(value));

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

export const statusCommand: Command = {
  name: 'status',
  args: '',
  summary: "Each IPFE's push state and its desired and applied revision",
  details: [
    'Exit 0 whatever the states are; read the STATE column (synced, pending, rejected, unreachable).',
  ],
  options: {},
  positionals: [],
  async run(context) {
    const { body } = await context.client().request<IpfeView>('GET', '/api/ipfe');
    context.out(`Running revision ${body.latestRevision}`);
    const rows = [['IPFE', 'STATE', 'DESIRED', 'APPLIED', 'ADDRESS', 'LAST CONTACT', 'ALARMS']];
    for (const slot of body.items) {
      rows.push([
        slot.slot,
        slot.state,
        cell(slot.desiredRevision),
        cell(slot.appliedRevision),
        cell(slot.address),
        cell(slot.lastContact),
        String(slot.alarms.length),
      ]);
    }
    for (const line of table(rows)) context.out(line);
    for (const slot of body.items) {
      if (slot.rejected) {
        context.out(
          `${slot.slot} rejected revision ${slot.rejected.revision}: ${slot.rejected.error}`,
        );
      }
    }
    return EXIT.ok;
  },
};
