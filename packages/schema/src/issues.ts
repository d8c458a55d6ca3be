/** A finding of validation, located by a dot path ("targetSets.0.servers.1.weight"). */
export interface ConfigIssue {
  path: string;
  message: string;
  severity: 'error' | 'warning';
  /**
   * Where the issue can be cured when it lies in another entity than its path: e.g. an
   * unconfigured Active IPFE is cured at "options.ipfe.A2.address".
   */
  cause?: string;
  /**
   * The issue as the entity at `cause` sees it, where "{users}" stands for the entities it breaks
   * ("127.0.1.1 is in use by {users}" → "… by Target Sets 1 and 2"): what a change of that entity
   * is refused with, rather than the referring entity's own message.
   */
  causeMessage?: string;
  /**
   * The field that holds the value at fault, where the issue's path is a whole list: the IP List
   * row of the shared server ("servers.2.address") for an overlap reported on "servers".
   */
  valuePath?: string;
  /**
   * The other entity of a rule between two ("targetSets.4"), which reports the issue from its
   * side too: a reader that knows which of the two changed reports it on that one only.
   */
  pairedWith?: string;
}

/** Where a `causeMessage` names the entities an issue breaks. */
export const USERS_PLACEHOLDER = '{users}';

export function joinPath(...parts: (string | number)[]): string {
  return parts.filter((p) => p !== '').join('.');
}

export const errorsOf = (issues: ConfigIssue[]) => issues.filter((i) => i.severity === 'error');
export const warningsOf = (issues: ConfigIssue[]) => issues.filter((i) => i.severity === 'warning');
