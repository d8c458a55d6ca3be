import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { checkConfiguration, listOf, type Configuration } from '@ipfe/schema';
import { ApiError, notFound } from '../http/errors.ts';
import { commitHeaders } from '../http/commit-headers.ts';
import { etagOf, requireIfMatch } from '../http/etag.ts';
import { ListAnswer } from '../http/list-answer.ts';
import {
  COLLECTIONS,
  itemsOf,
  keyOf,
  warningsOf,
  type CollectionSpec,
} from '../domain/collections.ts';
import { validateDelete, validateEdit } from '../domain/validate-change.ts';
import { IF_MATCH_ERRORS } from '../plugins/openapi.ts';

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

const JSON_TYPE = 'application/json; charset=utf-8';

/** List, insert, read, edit and delete for every collection of the configuration. */
const collectionRoutes: FastifyPluginAsyncZod = async (app) => {
  for (const spec of COLLECTIONS) registerCollection(app, spec);
};

function registerCollection(
  app: Parameters<FastifyPluginAsyncZod>[0],
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec: CollectionSpec<any, any>,
) {
  const base = `/api/${spec.route}`;
  const params = z.object({ key: spec.keyParam });
  const tags = [spec.noun];
  /** The noun as an operationId takes it: 'XSI network' → 'XsiNetwork'. */
  const Noun = spec.noun
    .split(' ')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
    .join('');

  const find = (config: Configuration, key: string | number) => {
    const items = itemsOf(config, spec);
    const index = items.findIndex((item) => keyOf(spec, item) === String(key));
    return { items, index, item: index >= 0 ? items[index] : null };
  };
  /** The live fields of an item of the running configuration `running`. */
  const liveOf = (item: unknown, running: Configuration): object =>
    spec.live?.(item, {
      liveTargetSet: (number, tsa) => app.agentSync.liveTargetSet(number, tsa),
      notServed: (ts) => app.agentSync.notServed(ts, running),
    }) ?? {};
  /** An item as answered: derived and live fields, and its warnings (of the given issues). */
  const view = (config: Configuration, index: number, issues = checkConfiguration(config)) => {
    const item = itemsOf(config, spec)[index];
    return {
      ...spec.view(config, item),
      ...liveOf(item, config),
      warnings: warningsOf(issues, `${spec.kind}.${index}`),
    };
  };
  /**
   * The running revision's items as answered, but for the live fields: built once per revision
   * (derived fields, warnings, ETags, the list's JSON) and shared by the reads of that revision.
   */
  const listKey = Symbol(`${spec.kind} list`);
  const views = () =>
    app.configRepository.perRevision(listKey, (config, issues) => {
      const entries = itemsOf(config, spec).map((item, index) => ({
        item,
        view: spec.view(config, item),
        warnings: warningsOf(issues, `${spec.kind}.${index}`),
      }));
      const byKey = new Map<string, (typeof entries)[number] & { etag: string }>();
      for (const entry of entries) {
        const key = keyOf(spec, entry.item);
        if (!byKey.has(key)) byKey.set(key, { ...entry, etag: etagOf(entry.item) });
      }
      return { list: new ListAnswer(entries), byKey, config };
    });
  const label = (item: unknown) => `${spec.noun} ${keyOf(spec, item)}`;
  const Label = (item: unknown) => capitalize(label(item));
  const alreadyExists = (key: string) =>
    new ApiError('CONFLICT', `${capitalize(spec.noun)} ${key} already exists`, [
      { path: spec.keyField, message: `${capitalize(spec.noun)} ${key} already exists` },
    ]);
  /** The write `summary` of `stored`, at `index` of `candidate`, once the edit is valid. */
  const validWrite = (
    config: Configuration,
    candidate: Configuration,
    index: number,
    stored: unknown,
    summary: string,
  ) => {
    validateEdit(
      config,
      candidate,
      `${spec.kind}.${index}`,
      spec.blameField,
      app.agentSync.statuses(),
    );
    return { config: candidate, summary, value: { candidate, index, stored } };
  };

  app.get(
    base,
    {
      schema: {
        tags,
        operationId: `list${Noun}s`,
        summary: `List every ${spec.noun}`,
        response: { 200: listOf(spec.viewSchema) },
      },
    },
    // The schema documents the answer; built from a validated configuration, its JSON is made
    // once per revision (with the live fields of the moment added) and sent as it is rather than
    // checked again item by item (32 × 32 Target Sets would cost more than everything else the
    // request does).
    async (_request, reply) => {
      const { list, config } = await views();
      const body = list.body(spec.live ? (item) => liveOf(item, config) : undefined);
      // Bytes already serialized: Fastify sends a Buffer as it is, under the type set here.
      return reply.type(JSON_TYPE).send(body as unknown as { items: unknown[] });
    },
  );

  app.get(
    `${base}/:key`,
    {
      schema: {
        tags,
        operationId: `get${Noun}`,
        summary: `Read one ${spec.noun}`,
        errors: ['NOT_FOUND'],
        params,
        response: { 200: spec.viewSchema },
      },
    },
    async (request, reply) => {
      const { byKey, config } = await views();
      const entry = byKey.get(String(request.params.key));
      if (!entry) throw notFound(`${spec.noun} ${request.params.key}`);
      return reply
        .header('etag', entry.etag)
        .send({ ...entry.view, ...liveOf(entry.item, config), warnings: entry.warnings });
    },
  );

  app.post(
    base,
    {
      schema: {
        tags,
        operationId: `insert${Noun}`,
        summary: `Insert a ${spec.noun}`,
        errors: ['CONFLICT'],
        body: spec.inputSchema,
        response: { 201: spec.viewSchema },
      },
    },
    async (request, reply) => {
      const { revision, value } = await app.configRepository.commit(
        request.user!.name,
        (config) => {
          const stored = spec.toStored(request.body, config, null);
          const key = keyOf(spec, stored);
          if (find(config, key).item) throw alreadyExists(key);
          const candidate = { ...config, [spec.kind]: [...itemsOf(config, spec), stored] };
          const index = itemsOf(candidate, spec).length - 1;
          return validWrite(config, candidate, index, stored, `Insert ${label(stored)}`);
        },
      );
      return commitHeaders(
        reply
          .code(201)
          .header('etag', etagOf(value.stored))
          .header('location', `${base}/${encodeURIComponent(keyOf(spec, value.stored))}`),
        revision,
      ).send(view(value.candidate, value.index));
    },
  );

  app.put(
    `${base}/:key`,
    {
      schema: {
        tags,
        operationId: `edit${Noun}`,
        summary: `Edit a ${spec.noun} (If-Match required; no change: no revision, header x-ipfe-unchanged)`,
        errors: ['NOT_FOUND', ...IF_MATCH_ERRORS, 'CONFLICT'],
        params,
        body: spec.inputSchema,
        response: { 200: spec.viewSchema },
      },
    },
    async (request, reply) => {
      const { revision, value } = await app.configRepository.commit(
        request.user!.name,
        (config) => {
          const { item, index } = find(config, request.params.key);
          if (!item) throw notFound(`${spec.noun} ${request.params.key}`);
          requireIfMatch(request.headers['if-match'], etagOf(item), () => view(config, index));
          const stored = spec.toStored(request.body, config, item);
          const key = keyOf(spec, stored);
          if (key !== keyOf(spec, item) && find(config, key).item) throw alreadyExists(key);
          const items = [...itemsOf(config, spec)];
          items[index] = stored;
          const candidate = { ...config, [spec.kind]: items };
          return validWrite(config, candidate, index, stored, `Edit ${label(stored)}`);
        },
      );
      return commitHeaders(reply.header('etag', etagOf(value.stored)), revision).send(
        view(value.candidate, value.index),
      );
    },
  );

  app.delete(
    `${base}/:key`,
    {
      schema: {
        tags,
        operationId: `delete${Noun}`,
        summary: `Delete a ${spec.noun} (If-Match required)`,
        errors: ['NOT_FOUND', ...IF_MATCH_ERRORS, 'IN_USE'],
        params,
      },
    },
    async (request, reply) => {
      const { revision } = await app.configRepository.commit(request.user!.name, (config) => {
        const { item, index } = find(config, request.params.key);
        if (!item) throw notFound(`${spec.noun} ${request.params.key}`);
        requireIfMatch(request.headers['if-match'], etagOf(item), () => view(config, index));
        const candidate = {
          ...config,
          [spec.kind]: itemsOf(config, spec).filter((_, i) => i !== index),
        };
        validateDelete(config, candidate, Label(item));
        return { config: candidate, summary: `Delete ${label(item)}`, value: null };
      });
      return commitHeaders(reply.code(204), revision).send();
    },
  );
}

export default collectionRoutes;
