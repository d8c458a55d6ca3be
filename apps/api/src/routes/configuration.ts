import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  configPlanSchema,
  deriveConfiguration,
  DOCUMENT_FORMAT_VERSION,
  revisionInfoSchema,
  type ConfigDiff,
  type FieldError,
} from '@ipfe/schema';
import { ApiError, validationError } from '../http/errors.ts';
import { sendCommit } from '../http/commit-headers.ts';
import { diffConfigs } from '../domain/diff.ts';
import { candidateOf } from '../domain/config-candidate.ts';

/** A config document as GET /api/export (and `ipfe export`) writes it; revision and digest are informative. */
const documentBody = z.strictObject({
  formatVersion: z.literal(DOCUMENT_FORMAT_VERSION, {
    error: `formatVersion must be ${DOCUMENT_FORMAT_VERSION}`,
  }),
  revision: z.int({ error: 'revision must be a whole number' }).min(0).optional(),
  sha256: z.string({ error: 'sha256 must be a string' }).optional(),
  config: z.record(z.string(), z.unknown(), { error: 'config must be an object' }),
});

/** A whole configuration can be large: more than the 256 KiB other bodies may have. */
const DOCUMENT_BODY_LIMIT = 16 * 1024 * 1024;

const NO_CHANGES: ConfigDiff = { added: [], removed: [], changed: [] };

/** The running configuration as a document's `config`, and its revision, once per revision. */
const RUNNING = Symbol('running-document-config');

/** `"12"` (or 12): the revision a plan was made against. */
function plannedRevision(ifMatch: string | undefined): number {
  if (ifMatch === undefined) {
    throw new ApiError(
      'PRECONDITION_REQUIRED',
      'If-Match is required: send "<revision>", the basedOn of the plan you apply',
    );
  }
  const match = /^\s*"?(\d{1,15})"?\s*$/.exec(ifMatch);
  if (!match) {
    throw validationError([
      { path: 'If-Match', message: 'If-Match must be a revision number in quotes, such as "12"' },
    ]);
  }
  return Number(match[1]);
}

/** "config.targetSets.0.servers.1.weight: …" and how many more, for a one-line refusal. */
function summaryOf(problems: FieldError[]): string {
  const first = problems[0]!;
  const more = problems.length - 1;
  return `${first.path}: ${first.message}${more > 0 ? ` (and ${more} more ${more === 1 ? 'problem' : 'problems'})` : ''}`;
}

/**
 * The whole configuration at once, for GitOps: plan a config document against the running
 * revision, then commit it guarded by the revision it was planned against (a stale plan is
 * refused, never merged).
 */
const configurationRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['Configuration'];
  const running = () =>
    app.configRepository.perRevision(RUNNING, (config, _issues, revision) => ({
      revision,
      config: deriveConfiguration(config),
    }));

  app.post(
    '/api/config/plan',
    {
      bodyLimit: DOCUMENT_BODY_LIMIT,
      schema: {
        tags,
        operationId: 'planConfiguration',
        summary:
          'What committing this config document would change against the running revision (basedOn), and every problem that would refuse it; commits nothing',
        body: documentBody,
        response: { 200: configPlanSchema },
      },
    },
    async (request) => {
      const base = await running();
      const candidate = candidateOf(
        request.body.config,
        await app.configRepository.current(),
        app.agentSync.statuses(),
      );
      return {
        basedOn: base.revision,
        changes: candidate.config
          ? diffConfigs(base.config, deriveConfiguration(candidate.config))
          : NO_CHANGES,
        problems: candidate.problems,
      };
    },
  );

  app.put(
    '/api/config',
    {
      bodyLimit: DOCUMENT_BODY_LIMIT,
      schema: {
        tags,
        operationId: 'applyConfiguration',
        summary:
          'Commit a config document as the next revision (If-Match: "<revision planned against>"; another revision since: 409; no change: 200 with the running revision, header x-ipfe-unchanged). An application server without initiatorPortRange is given one: the one it runs with, else the lowest free slice',
        errors: ['PRECONDITION_REQUIRED', 'CONFLICT'],
        body: documentBody,
        response: { 200: revisionInfoSchema, 201: revisionInfoSchema },
      },
    },
    async (request, reply) => {
      const planned = plannedRevision(request.headers['if-match']);
      const candidate = candidateOf(
        request.body.config,
        await app.configRepository.current(),
        app.agentSync.statuses(),
      );
      if (!candidate.config) {
        throw validationError(candidate.problems, summaryOf(candidate.problems));
      }
      const config = candidate.config;
      const { revision } = await app.configRepository.commit(
        request.user!.name,
        (_base, latest) => {
          if (latest !== planned) {
            throw new ApiError(
              'CONFLICT',
              `The running revision is ${latest}, not ${planned} that this was planned against: plan again`,
              [],
              { running: latest },
            );
          }
          return {
            config,
            summary: `Apply a configuration planned against revision ${planned}`,
            value: null,
          };
        },
      );
      return sendCommit(reply, revision, () => app.configRepository.runningInfo());
    },
  );
};

export default configurationRoutes;
