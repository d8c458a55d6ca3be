import type { FastifyReply } from 'fastify';
import type { RevisionInfo } from '../repositories/config-repository.ts';

/** The revision a change committed. */
export const REVISION_HEADER = 'x-ipfe-revision';
/** Present (`true`) on the answer to a change that changed nothing: no revision, no push. */
export const UNCHANGED_HEADER = 'x-ipfe-unchanged';

/** Says on the answer what a commit did: the new revision's number, or that nothing changed. */
export function commitHeaders(reply: FastifyReply, revision: RevisionInfo | null): FastifyReply {
  return revision
    ? reply.header(REVISION_HEADER, String(revision.number))
    : reply.header(UNCHANGED_HEADER, 'true');
}

/**
 * Answers a commit of a whole configuration: 201 with the new revision, or 200 with the running
 * one when nothing changed.
 */
export async function sendCommit(
  reply: FastifyReply,
  revision: RevisionInfo | null,
  running: () => Promise<RevisionInfo>,
): Promise<FastifyReply> {
  return revision
    ? commitHeaders(reply.code(201), revision).send(revision)
    : commitHeaders(reply.code(200), null).send(await running());
}
