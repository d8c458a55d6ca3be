import {
  checkConfiguration,
  type ConfigIssue,
  type Configuration,
  type FieldError,
  USERS_PLACEHOLDER,
} from '@ipfe/schema';
import { ApiError, validationError } from '../http/errors.ts';
import { newServingProblems, type Statuses } from './serving.ts';

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

/** "a", "a and b", "a, b and c". */
function listOf(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

const NOUNS = ['Target Set', 'application server', 'XSI network', 'peer node group'];

/**
 * Every entity once, those of a kind together: "Target Sets 1, 2 and 3", "application servers
 * mp1 and mp2, and Target Set 1".
 */
export function nameAll(labels: string[]): string {
  const groups = new Map<string, string[]>();
  for (const label of new Set(labels)) {
    const noun = NOUNS.find((n) => label.startsWith(`${n} `));
    const group = groups.get(noun ?? label) ?? [];
    group.push(noun ? label.slice(noun.length + 1) : '');
    groups.set(noun ?? label, group);
  }
  const parts = [...groups].map(([noun, names]) =>
    names.length === 1 ? `${noun}${names[0] ? ` ${names[0]}` : ''}` : `${noun}s ${listOf(names)}`,
  );
  if (parts.length <= 2 && [...groups.values()].every((names) => names.length === 1)) {
    return listOf(parts);
  }
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')}, and ${parts.at(-1)}`;
}

/**
 * Issues that a change of one entity causes in others, as the changed entity's refusal: one per
 * field and cause, naming every entity it breaks ("127.0.1.1 is in use by Target Sets 1 and 2"),
 * or the other entity's own message after its name when the rule has no wording for its cause.
 */
function causedErrors(
  candidate: Configuration,
  caused: ConfigIssue[],
  pathOf: (issue: ConfigIssue) => string,
): FieldError[] {
  const groups = new Map<string, { path: string; text: string; labels: string[] }>();
  for (const issue of caused) {
    const { label } = describeLocation(candidate, issue.path);
    const path = pathOf(issue);
    const text = issue.causeMessage ?? `${capitalize(label)}: ${issue.message}`;
    const key = `${path}\n${text}`;
    const group = groups.get(key) ?? { path, text, labels: [] };
    group.labels.push(label);
    groups.set(key, group);
  }
  return [...groups.values()].map(({ path, text, labels }) => ({
    path,
    message: text.replace(USERS_PLACEHOLDER, nameAll(labels)),
  }));
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

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
 * that breaks. A change that would leave a Target Set Address served by no IPFE, as the agents'
 * `statuses` say, is refused too. Returns the edited entity's warnings.
 */
export function validateEdit(
  base: Configuration,
  candidate: Configuration,
  entity: EntityPath,
  blameField: string,
  statuses: Statuses,
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
      causedErrors(candidate, caused, (i) =>
        i.cause && within(i.cause, entity) ? relative(i.cause, entity) : blameField,
      ),
    );
  }
  validateServing(base, candidate, statuses, entity, blameField);
  return own
    .filter((i) => i.severity === 'warning')
    .map((i) => ({ path: relative(i.path, entity), message: i.message }));
}

/**
 * A change that would leave a Target Set Address served by no IPFE able to serve it, as the agents
 * report, is refused: on the edited Target Set's own field, or on `blameField` naming the Target Set.
 */
function validateServing(
  base: Configuration,
  candidate: Configuration,
  statuses: Statuses,
  entity: EntityPath,
  blameField: string,
): void {
  const problems = newServingProblems(base, candidate, statuses);
  if (problems.length === 0) return;
  throw validationError(
    problems.map((i) =>
      within(i.path, entity)
        ? { path: relative(i.path, entity), message: i.message }
        : {
            path: blameField,
            message: `${capitalize(describeLocation(candidate, i.path).label)}: ${i.message}`,
          },
    ),
  );
}

/** A delete is refused while anything still uses the entity; the message names every user. */
export function validateDelete(base: Configuration, candidate: Configuration, what: string): void {
  const caused = introducedElsewhere(base, candidate, checkConfiguration(candidate), null);
  if (caused.length === 0) return;
  const users = caused.map((i) => describeLocation(candidate, i.path).label);
  throw new ApiError(
    'IN_USE',
    `${what} is still used by ${nameAll(users)}`,
    causedErrors(candidate, caused, (i) => i.path),
  );
}
