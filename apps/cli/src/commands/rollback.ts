import type { RevisionInfo } from '@ipfe/schema';
import { wholeNumber, type Command } from '../command.ts';
import { EXIT } from '../errors.ts';

export const rollbackCommand: Command = {
  name: 'rollback',
  args: 'N',
  summary: "Commit revision N's configuration again, as a new revision",
  details: ['Refused (exit 1) when revision N does not exist or no longer passes the rules.'],
  options: {},
  positionals: ['N'],
  async run(context, [n]) {
    const number = wholeNumber(n!, 'the revision');
    const answer = await context
      .client()
      .request<RevisionInfo>('POST', `/api/revisions/${number}/rollback`);
    if (answer.headers.get('x-ipfe-unchanged')) {
      context.out(`Revision ${number} is the running configuration already; nothing committed`);
    } else {
      context.out(`Rolled back to revision ${number}: revision ${answer.body.number}`);
    }
    return EXIT.ok;
  },
};
