import type { ConfigPlan, ErrorBody } from '@ipfe/schema';
import type { Command, Context } from '../command.ts';
import { changeCount, changeLines, changeSummary } from '../changes.ts';
import { problemLines, readDocumentFile, type DocumentFile } from '../document-file.ts';
import { CliError, EXIT } from '../errors.ts';

/**
 * The plan of a document file. A refusal of the document itself (its formatVersion, a field that
 * is not one) and every problem of its configuration come back as lines naming file and line.
 */
export async function planOf(
  context: Context,
  file: string,
): Promise<{ document: DocumentFile; plan: ConfigPlan }> {
  const document = readDocumentFile(context.path(file), file);
  const answer = await context
    .client()
    .request<ConfigPlan | ErrorBody>('POST', '/api/config/plan', {
      body: document.value,
      accept: [400],
    });
  if (answer.status === 400) {
    const { error } = answer.body as ErrorBody;
    const fields = error.fields.length > 0 ? error.fields : [{ path: '', message: error.message }];
    throw new CliError(problemLines(document, fields).join('\n'));
  }
  const plan = answer.body as ConfigPlan;
  if (plan.problems.length > 0) {
    throw new CliError(
      `${problemLines(document, plan.problems).join('\n')}\n${file}: ${plan.problems.length} ${plan.problems.length === 1 ? 'problem' : 'problems'}; nothing would be committed`,
    );
  }
  return { document, plan };
}

export function printPlan(context: Context, file: string, plan: ConfigPlan): void {
  context.out(`Plan of ${file} against revision ${plan.basedOn}:`);
  for (const line of changeLines(plan.changes)) context.out(`  ${line}`);
  context.out(changeSummary(plan.changes));
}

export const planCommand: Command = {
  name: 'plan',
  args: 'FILE',
  summary: 'Show what applying a config document would change against the running revision',
  details: [
    'Exit 0: no change. Exit 2: the changes printed. Exit 1: a problem (file:line: field: message); nothing is committed either way.',
    'Apply exactly this plan later with: ipfe apply FILE --based-on <the revision it names>.',
  ],
  options: {},
  positionals: ['FILE'],
  async run(context, [file]) {
    const { plan } = await planOf(context, file!);
    if (changeCount(plan.changes) === 0) {
      context.out(`No changes: ${file} matches revision ${plan.basedOn}`);
      return EXIT.ok;
    }
    printPlan(context, file!, plan);
    return EXIT.changes;
  },
};
