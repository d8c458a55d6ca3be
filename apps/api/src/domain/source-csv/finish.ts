import { checkConfiguration, portRangesOf, type Configuration, type PortRange } from '@ipfe/schema';
import { newServingProblems, type Statuses } from '../serving.ts';
import { describeLocation } from '../validate-change.ts';
import { serverOffers, withOfferedServers } from './server-offer.ts';
import { capped, problem, sameAsRunning, valueAt, type ImportRead, type Origin } from './shared.ts';

/** What a reader hands over once every row of the file is read. */
export interface ReadRows {
  /** The running configuration with what the file replaces replaced. */
  candidate: Configuration;
  /** Where each entity of the candidate came from ("options", "targetSets.2"). */
  origins: Map<string, Origin>;
  /** The collections ("targetSets") with a row refused: what refers to them waits. */
  refused: Set<string>;
}

/**
 * The rules between entities, and the offer of the servers the file needs, on the configuration
 * the file describes: both file formats end here. Every problem is located at the line and column
 * it came from; one that concerns an entity the file did not carry says so.
 */
export function finishRead(
  out: ImportRead,
  { candidate, origins, refused }: ReadRows,
  running: Configuration,
  statuses: Statuses,
  { createServers }: { createServers: boolean },
): ImportRead {
  // Without its refused rows the file's configuration is not what the file says: no changes shown.
  const rowsRefused = out.problems.length > 0;
  const { offers, offered, homeless } = serverOffers(candidate, origins);
  out.serversToCreate = offers;
  let config = candidate;
  if (createServers && offers.length > 0) {
    const first = config.appServers.length;
    config = withOfferedServers(config, offers);
    offers.forEach((offer, k) => {
      const cell = offered.find((c) => c.address === offer.addresses[0])!;
      origins.set(`appServers.${first + k}`, {
        at: () => ({ line: cell.line, column: cell.column }),
      });
    });
  }
  // The addresses told here are not told again by the rules ("… is not an application server").
  const told = new Set([...homeless, ...offered].map((c) => c.address));
  for (const cell of homeless) {
    out.problems.push(
      problem(
        cell.line,
        cell.column,
        `${cell.address} is not an application server here, and no XSI network here holds it, so it cannot be created: add the XSI network that holds it (Network › XSI Networks), or correct the address`,
      ),
    );
  }
  if (!createServers) {
    for (const cell of offered) {
      out.problems.push(
        problem(
          cell.line,
          cell.column,
          `${cell.address} is not an application server here: accept the offer to create application server ${cell.server}, or add it under Network › Application Servers`,
        ),
      );
    }
  }
  const found = out.problems.length;
  allocateMissingRanges(config, running, origins, out);
  if (out.problems.length > found) return capped(out);

  const entityOf = (path: string) => {
    const segments = path.split('.');
    return segments[0] === 'options' ? 'options' : segments.slice(0, 2).join('.');
  };
  const changed = (entity: string) =>
    origins.has(entity) && !sameAsRunning(config, running, entity);
  const rules = [...checkConfiguration(config), ...newServingProblems(running, config, statuses)];
  for (const issue of rules) {
    if (issue.severity !== 'error') continue;
    // What refers to a refused row is told once that row is fixed.
    if (issue.cause && [...refused].some((collection) => issue.cause!.startsWith(collection))) {
      continue;
    }
    const value = valueAt(config, issue.valuePath ?? issue.path);
    if (issue.cause === 'appServers' && typeof value === 'string' && told.has(value)) continue;
    const entity = entityOf(issue.path);
    // A rule between two rows is reported on the row that broke it, not also on the other.
    if (issue.pairedWith && !changed(entity) && changed(entityOf(issue.pairedWith))) continue;
    const origin = origins.get(entity);
    const field = (issue.valuePath ?? issue.path).slice(entity.length + 1);
    if (origin) {
      const { line, column } = origin.at(field);
      out.problems.push(problem(line, column, issue.message));
    } else {
      const { label } = describeLocation(config, issue.path);
      out.problems.push({
        path: `${label} (not in the file: as it runs)`,
        message: issue.message,
        line: null,
        column: null,
      });
    }
  }
  if (!rowsRefused) out.candidate = config;
  if (out.problems.length === 0) out.config = config;
  return capped(out);
}

/**
 * Gives an application server without an Initiator Port Range one by the rule every whole
 * configuration follows (`portRangesOf`): the one it runs with, else the lowest free slice.
 */
function allocateMissingRanges(
  config: Configuration,
  running: Configuration,
  origins: Map<string, Origin>,
  out: ImportRead,
) {
  const servers = config.appServers as (Configuration['appServers'][number] & {
    initiatorPortRange?: PortRange;
  })[];
  portRangesOf(servers, running.appServers).forEach((range, i) => {
    if (range) {
      servers[i]!.initiatorPortRange = range;
      return;
    }
    const at = origins.get(`appServers.${i}`)?.at('name');
    out.problems.push(
      problem(
        at?.line ?? null,
        at?.column ?? null,
        'No Initiator Port Range is left for this server (at most 64 application servers)',
      ),
    );
  });
}
