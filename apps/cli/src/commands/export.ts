import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import type { ConfigDocument } from '@ipfe/schema';
import { wholeNumber, type Command } from '../command.ts';
import { CliError, EXIT } from '../errors.ts';

export const exportCommand: Command = {
  name: 'export',
  args: '[--revision N] [--out FILE]',
  summary: 'Write a revision (default: the running one) as a YAML config document',
  details: [
    'Standard output unless --out. The file is what plan and apply read: edit it, commit it to git.',
  ],
  options: {
    revision: { type: 'string', value: 'N', description: 'the revision to export' },
    out: { type: 'string', value: 'FILE', description: 'write to FILE instead of standard output' },
  },
  positionals: [],
  async run(context, _positionals, values) {
    const revision =
      typeof values.revision === 'string' ? wholeNumber(values.revision, '--revision') : undefined;
    const query = revision === undefined ? '' : `?revision=${revision}`;
    const { body } = await context.client().request<ConfigDocument>('GET', `/api/export${query}`);
    const yaml = `# IPFE configuration, revision ${body.revision} (sha256 ${body.sha256}).\n# Derived fields (standbyIpfe, appServer, initiatorPortRange, chancePct) are recomputed on apply.\n${stringify(body, { lineWidth: 0 })}`;
    if (typeof values.out === 'string') {
      try {
        writeFileSync(context.path(values.out), yaml);
      } catch (err) {
        throw new CliError(
          `${values.out}: cannot write it (${(err as NodeJS.ErrnoException).code})`,
        );
      }
      context.err(`revision ${body.revision} written to ${values.out}`);
    } else {
      context.write(yaml);
    }
    return EXIT.ok;
  },
};
