import type { ErrorBody, RevisionInfo } from '@ipfe/schema';
import { wholeNumber, type Command } from '../command.ts';
import { changeCount } from '../changes.ts';
import { problemLines } from '../document-file.ts';
import { CliError, EXIT } from '../errors.ts';
import { planOf, printPlan } from './plan.ts';

export const applyCommand: Command = {
  name: 'apply',
  args: 'FILE [--based-on N]',
  summary: 'Plan a config document, then commit it as one revision guarded by the planned revision',
  details: [
    'The commit is refused (exit 3, stale: nothing committed) when the running revision is no longer the one planned against: another change came first; plan again.',
    '--based-on N: commit only if the running revision is still N (the revision a reviewed `ipfe plan` named).',
  ],
  options: {
    'based-on': {
      type: 'string',
      value: 'N',
      description: 'the revision the plan was reviewed against',
    },
  },
  positionals: ['FILE'],
  async run(context, [file], values) {
    const pinned =
      typeof values['based-on'] === 'string'
        ? wholeNumber(values['based-on'], '--based-on')
        : undefined;
    const { document, plan } = await planOf(context, file!);
    const basedOn = pinned ?? plan.basedOn;
    if (changeCount(plan.changes) === 0 && basedOn === plan.basedOn) {
      context.out(`No changes: ${file} matches revision ${plan.basedOn}; nothing committed`);
      return EXIT.ok;
    }
    printPlan(context, file!, plan);
    const answer = await context.client().request<RevisionInfo | ErrorBody>('PUT', '/api/config', {
      body: document.value,
      headers: { 'if-match': `"${basedOn}"` },
      accept: [400, 409],
    });
    if (answer.status === 409) {
      throw new CliError(
        `${file}: refused, nothing committed: ${(answer.body as ErrorBody).error.message}`,
        EXIT.stale,
      );
    }
    if (answer.status === 400) {
      const { error } = answer.body as ErrorBody;
      throw new CliError(problemLines(document, error.fields).join('\n') || error.message);
    }
    const revision = answer.body as RevisionInfo;
    if (answer.headers.get('x-ipfe-unchanged')) {
      context.out(`No changes: revision ${revision.number} is ${file} already; nothing committed`);
    } else {
      context.out(`Applied ${file}: revision ${revision.number} (planned against ${basedOn})`);
    }
    return EXIT.ok;
  },
};
