import {
  checkConfiguration,
  type ConfigIssue,
  type Configuration,
  type FieldError,
} from '@ipfe/schema';
import { ApiError, validationError } from '../http/errors.ts';

/** Where an entity lives in the configuration: "targetSets.3", "options". */
export type EntityPath = string;

/** "Target Set 2", "application server mp1": the entity an issue's root path falls in. */
export function describeLocation(
  config: Configuration,
  path: string,
): { entity: string; label: string } {
  const [collection, index] = path.split('.');
  const i = Number(index);
  switch (collection) {
    case 'targetSets':
      return { entity: `targetSets.${i}`, label: `Target Set ${config.targetSets[i]?.number}` };
    case 'appServers':
      return {
        entity: `appServers.${i}`,
        label: `application server ${config.appServers[i]?.name}`,
      };
    case 'xsiNetworks':
      return { entity: `xsiNetworks.${i}`, label: `XSI network ${config.xsiNetworks[i]?.name}` };
    case 'peerNodeGroups':
      return {
        entity: `peerNodeGroups.${i}`,
        label: `peer node group ${config.peerNodeGroups[i]?.name}`,
      };
    default:
      return { entity: 'options', label: 'IPFE options' };
  }
}

const within = (path: string, entity: EntityPath) =>
  path === entity || path.startsWith(`${entity}.`);
const relative = (path: string, entity: EntityPath) => path.slice(entity.length + 1);

/** Identifies an issue independently of array positions, which a change may shift. */
function fingerprint(config: Configuration, issue: ConfigIssue): string {
  const where = describeLocation(config, issue.path);
  return `${where.label}|${relative(issue.path, where.entity)}|${issue.message}`;
}

/** The issues a change introduced in entities other than the one it edited. */
function introducedElsewhere(
  base: Configuration,
  candidate: Configuration,
  candidateIssues: ConfigIssue[],
  entity: EntityPath | null,
): ConfigIssue[] {
  const before = new Set(
    checkConfiguration(base)
      .filter((i) => i.severity === 'error')
      .map((i) => fingerprint(base, i)),
  );
  return candidateIssues.filter(
    (i) =>
      i.severity === 'error' &&
      (entity === null || !within(i.path, entity)) &&
      !before.has(fingerprint(candidate, i)),
  );
}

/**
 * Validates the whole configuration a change would commit. Errors of the edited entity are
 * reported at its own field paths; errors the change causes elsewhere (a network that no longer
 * holds a Target Set address, say) are reported on the field that caused them, naming the entity
 * that breaks. Returns the edited entity's warnings.
 */
export function validateEdit(
  base: Configuration,
  candidate: Configuration,
  entity: EntityPath,
  blameField: string,
): FieldError[] {
  const issues = checkConfiguration(candidate);
  const own = issues.filter((i) => within(i.path, entity));
  const ownErrors = own.filter((i) => i.severity === 'error');
  if (ownErrors.length > 0) {
    throw validationError(
      ownErrors.map((i) => ({ path: relative(i.path, entity), message: i.message })),
    );
  }
  const caused = introducedElsewhere(base, candidate, issues, entity);
  if (caused.length > 0) {
    throw validationError(
      caused.map((i) => {
        const where = describeLocation(candidate, i.path);
        const path = i.cause && within(i.cause, entity) ? relative(i.cause, entity) : blameField;
        return { path, message: `${where.label}: ${i.message}` };
      }),
    );
  }
  return own
    .filter((i) => i.severity === 'warning')
    .map((i) => ({ path: relative(i.path, entity), message: i.message }));
}

/** A delete is refused while anything still uses the entity; the message names every user. */
export function validateDelete(base: Configuration, candidate: Configuration, what: string): void {
  const caused = introducedElsewhere(base, candidate, checkConfiguration(candidate), null);
  if (caused.length === 0) return;
  const users = [...new Set(caused.map((i) => describeLocation(candidate, i.path).label))];
  throw new ApiError(
    'IN_USE',
    `${what} is still used by ${users.join(', ')}`,
    caused.map((i) => ({
      path: i.path,
      message: `${describeLocation(candidate, i.path).label}: ${i.message}`,
    })),
  );
}
