import {
  APP_SERVERS_MAX,
  checkConfiguration,
  configurationShape,
  errorsOf,
  fieldErrorsOf,
  portRangeSchema,
  portRangesOf,
  type Configuration,
  type FieldError,
} from '@ipfe/schema';
import { newServingProblems, type Statuses } from './serving.ts';

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The fields a config document derives (standby IPFE, a server row's application server, its
 * Initiator Port Range and chance) are dropped, not checked: whoever edits an exported document
 * changes a weight without recomputing every row's chance.
 */
function withoutDerived(config: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(config);
  if (!Array.isArray(copy.targetSets)) return copy;
  for (const ts of copy.targetSets as unknown[]) {
    if (!isObject(ts)) continue;
    for (const key of ['primary', 'secondary']) {
      const address = ts[key];
      if (isObject(address)) delete address.standbyIpfe;
    }
    if (!Array.isArray(ts.servers)) continue;
    for (const row of ts.servers as unknown[]) {
      if (!isObject(row)) continue;
      delete row.appServer;
      delete row.initiatorPortRange;
      delete row.chancePct;
    }
  }
  return copy;
}

/**
 * An application server given without an Initiator Port Range gets one, as the GUI's creation
 * does (SPEC §2.3: allocated, never typed): the one it runs with, else the lowest free slice. The
 * problems name each server left without one because all 64 are taken.
 */
function withPortRanges(config: Record<string, unknown>, running: Configuration): FieldError[] {
  if (!Array.isArray(config.appServers)) return [];
  // A server that is not an object, or whose range is malformed, is the shape's to report.
  const servers = (config.appServers as unknown[]).flatMap((server, index) => {
    if (!isObject(server)) return [];
    if (server.initiatorPortRange === undefined) return [{ index, server, name: server.name }];
    const range = portRangeSchema.safeParse(server.initiatorPortRange);
    return range.success
      ? [{ index, server, name: server.name, initiatorPortRange: range.data }]
      : [];
  });
  const problems: FieldError[] = [];
  portRangesOf(servers, running.appServers).forEach((range, i) => {
    const { index, server } = servers[i]!;
    if (server.initiatorPortRange !== undefined) return;
    if (range) server.initiatorPortRange = range;
    else {
      const name = typeof server.name === 'string' ? server.name : 'this server';
      problems.push({
        path: `config.appServers.${index}.initiatorPortRange`,
        message: `No Initiator Port Range is left for ${name}: at most ${APP_SERVERS_MAX} application servers`,
      });
    }
  });
  return problems;
}

/**
 * The configuration of a config document's `config` (stored form), or every problem with it:
 * each at its path in the document ("config.targetSets.0.servers.1.weight"), fields first, then
 * the rules across entities (errors only; warnings never refuse a configuration). An application
 * server without an Initiator Port Range is given one against `running`. A Target Set Address the
 * document would leave served by no IPFE able to (as the agents' `statuses` say) is a problem too.
 */
export function candidateOf(
  config: Record<string, unknown>,
  running: Configuration,
  statuses: Statuses = new Map(),
): { config: Configuration; problems: [] } | { config: null; problems: FieldError[] } {
  const given = withoutDerived(config);
  const unallocated = withPortRanges(given, running);
  const parsed = configurationShape.safeParse(given);
  if (!parsed.success || unallocated.length > 0) {
    const left = new Set(unallocated.map((p) => p.path));
    const shape = parsed.success ? [] : fieldErrorsOf(parsed.error, ['config']);
    return { config: null, problems: [...unallocated, ...shape.filter((p) => !left.has(p.path))] };
  }
  const problems = [
    ...errorsOf(checkConfiguration(parsed.data)),
    ...newServingProblems(running, parsed.data, statuses),
  ].map(({ path, message }) => ({ path: `config.${path}`, message }));
  return problems.length > 0 ? { config: null, problems } : { config: parsed.data, problems: [] };
}
