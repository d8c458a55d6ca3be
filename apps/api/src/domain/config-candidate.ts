import {
  checkConfiguration,
  configurationShape,
  errorsOf,
  fieldErrorsOf,
  type Configuration,
  type FieldError,
} from '@ipfe/schema';

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
 * The configuration of a config document's `config` (stored form), or every problem with it:
 * each at its path in the document ("config.targetSets.0.servers.1.weight"), fields first, then
 * the rules across entities (errors only; warnings never refuse a configuration).
 */
export function candidateOf(
  config: Record<string, unknown>,
): { config: Configuration; problems: [] } | { config: null; problems: FieldError[] } {
  const parsed = configurationShape.safeParse(withoutDerived(config));
  if (!parsed.success) return { config: null, problems: fieldErrorsOf(parsed.error, ['config']) };
  const problems = errorsOf(checkConfiguration(parsed.data)).map(({ path, message }) => ({
    path: `config.${path}`,
    message,
  }));
  return problems.length > 0 ? { config: null, problems } : { config: parsed.data, problems: [] };
}
