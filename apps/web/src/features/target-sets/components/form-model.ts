import {
  canonicalIp,
  checkTargetSetIn,
  defaultsOf,
  familyLabel,
  fieldPaths,
  fieldsOf,
  ipFamily,
  IPFE_SLOTS,
  standbyOf,
  lowestUnusedTargetSetNumber,
  publicAddressSchema,
  secondaryAddressSchema,
  targetSetFieldsSchema,
  targetSetServerSchema,
  underiveTargetSet,
  type AppServer,
  type Configuration,
  type DerivedTargetSet,
  type IpfeSlot,
  type Options,
  type TargetSet,
  type TargetSetInput,
  type TargetSetServer,
  type XsiNetwork,
} from '@ipfe/schema';
import type { FieldIssue } from '@/lib/api-client';

export type Family = TargetSet['family'];

/** A row of the IP list: the schema's fields; '' = no Secondary IP Address. */
export type ServerRowValues = Omit<TargetSetServer, 'secondaryAddress'> & {
  secondaryAddress: string;
};

/** A public address section (primary, secondary): '' = no Active IPFE chosen yet. */
export interface AddressValues {
  address: string;
  activeIpfe: IpfeSlot | '';
}

/**
 * The Insert/Edit form: the schema's fields, section by section, but for what the operator has not
 * chosen yet: '' stands for "not chosen".
 */
export type TargetSetFormValues = Omit<
  TargetSet,
  'primary' | 'secondary' | 'activeActiveIpfes' | 'servers'
> & {
  primary: AddressValues;
  /** An empty address means "no secondary address". */
  secondary: AddressValues;
  /** Decision 018. The IPFE list is kept while Active/Standby is chosen, but not sent. */
  activeActiveIpfes: IpfeSlot[];
  servers: ServerRowValues[];
};

/** What the form needs to know about the rest of the configuration. */
export interface TargetSetContext {
  options: Options;
  xsiNetworks: XsiNetwork[];
  appServers: AppServer[];
  /** Every Target Set as the API shows it (the one being edited included). */
  targetSets: DerivedTargetSet[];
  /** The number of the Target Set being edited; null on Insert. */
  editing: number | null;
}

export const configuredSlots = (options: Options) =>
  IPFE_SLOTS.filter((slot) => options.ipfe[slot] !== null);

/** The slot that complements `active` for a secondary address: its mate, else another slot. */
export function complementOf(options: Options, active: IpfeSlot | ''): IpfeSlot | '' {
  if (active) {
    const mate = standbyOf(options, active);
    if (mate) return mate;
  }
  const configured = configuredSlots(options);
  return configured.find((s) => s !== active) ?? configured[0] ?? '';
}

/** A new row of the IP list: no address yet, the schema's defaults. */
export const newServerRow = (): ServerRowValues => ({
  address: '',
  ...defaultsOf(targetSetServerSchema),
  secondaryAddress: '',
});

/** The TS Number an Insert holds: the lowest unused one; NaN when every number is in use. */
export const insertNumber = (targetSets: readonly { number: number }[]) =>
  lowestUnusedTargetSetNumber(targetSets) ?? Number.NaN;

/**
 * Insert's defaults, as the source GUI pre-fills them: the schema's, the lowest unused number, the
 * first configured IPFE and its complement.
 */
export function insertDefaults(family: Family, context: TargetSetContext): TargetSetFormValues {
  const active = configuredSlots(context.options)[0] ?? '';
  return {
    number: insertNumber(context.targetSets),
    family,
    ...defaultsOf(targetSetFieldsSchema),
    primary: { address: '', activeIpfe: active },
    secondary: { address: '', activeIpfe: complementOf(context.options, active) },
    activeActiveIpfes: [],
    servers: [newServerRow()],
  };
}

export function editValues(ts: DerivedTargetSet, options: Options): TargetSetFormValues {
  return {
    ...fieldsOf(targetSetFieldsSchema, ts),
    leastLoad: { ...ts.leastLoad },
    primary: fieldsOf(publicAddressSchema, ts.primary),
    secondary: ts.secondary
      ? fieldsOf(secondaryAddressSchema, ts.secondary)
      : { address: '', activeIpfe: complementOf(options, ts.primary.activeIpfe) },
    activeActiveIpfes: [...(ts.activeActiveIpfes ?? [])],
    servers: ts.servers.map((s) => ({
      ...fieldsOf(targetSetServerSchema, s),
      secondaryAddress: s.secondaryAddress ?? '',
    })),
  };
}

/** An address section as the API takes it: a slot not chosen is left out, for the schema to say. */
const addressBody = ({ address, activeIpfe }: AddressValues) => ({
  address,
  ...(activeIpfe ? { activeIpfe } : {}),
});

/** A row as the API takes it: its schema fields; no Secondary IP Address without a secondary TSA. */
const rowBody = (row: ServerRowValues, hasSecondary: boolean): TargetSetServer => ({
  ...fieldsOf(targetSetServerSchema, row),
  secondaryAddress: hasSecondary && row.secondaryAddress !== '' ? row.secondaryAddress : null,
});

/** The API's body: no secondary address means no secondary at all, nor secondary row addresses. */
export function toTargetSetBody(values: TargetSetFormValues): TargetSetInput {
  const hasSecondary = values.secondary.address.trim() !== '';
  const { activeActiveIpfes, ...rest } = values;
  return {
    ...rest,
    // Slots in the fixed order A1, A2, B1, B2, however they were ticked.
    ...(values.serving === 'activeActive'
      ? { activeActiveIpfes: IPFE_SLOTS.filter((slot) => (activeActiveIpfes ?? []).includes(slot)) }
      : {}),
    leastLoad: { ...values.leastLoad },
    primary: addressBody(values.primary),
    secondary: hasSecondary
      ? (addressBody(values.secondary) as NonNullable<TargetSetInput['secondary']>)
      : null,
    servers: values.servers.map((row) => rowBody(row, hasSecondary)),
  };
}

const canonical = (text: string) => canonicalIp(text.trim());

/** What a slot not chosen yet reads as, for the rules that need one: the schema's default. */
const UNCHOSEN_SLOT = defaultsOf(publicAddressSchema).activeIpfe;

/** An address section as it would be stored. */
const storedAddress = ({ address, activeIpfe }: AddressValues) => ({
  address: canonical(address),
  activeIpfe: activeIpfe || UNCHOSEN_SLOT,
});

/** The form's values as the stored Target Set they would become, as far as they can be read. */
function candidateOf(values: TargetSetFormValues): TargetSet {
  const body = toTargetSetBody(values);
  const hasSecondary = Boolean(body.secondary);
  const { activeActiveIpfes: _sentOnlyActiveActive, ...fields } = values;
  return {
    ...fields,
    leastLoad: { ...values.leastLoad },
    ...(body.activeActiveIpfes ? { activeActiveIpfes: body.activeActiveIpfes } : {}),
    primary: storedAddress(values.primary),
    secondary: hasSecondary ? storedAddress(values.secondary) : null,
    servers: values.servers.map((row) => {
      const server = rowBody(row, hasSecondary);
      return {
        ...server,
        address: canonical(server.address),
        secondaryAddress: server.secondaryAddress && canonical(server.secondaryAddress),
      };
    }),
  };
}

export interface ContextIssues {
  errors: FieldIssue[];
  warnings: FieldIssue[];
}

/** The other Target Sets as stored, read once for each list of Target Sets the page is given. */
const othersOf = new WeakMap<TargetSetContext['targetSets'], Map<number | null, TargetSet[]>>();

function otherTargetSets(context: TargetSetContext): TargetSet[] {
  let byEdited = othersOf.get(context.targetSets);
  if (!byEdited) othersOf.set(context.targetSets, (byEdited = new Map()));
  let others = byEdited.get(context.editing);
  if (!others) {
    others = context.targetSets
      .filter((t) => t.number !== context.editing)
      .map((t) => underiveTargetSet(t));
    byEdited.set(context.editing, others);
  }
  return others;
}

/**
 * The rules that span entities (SPEC §2), on the configuration as it would be after the save,
 * exactly as the API runs them: the same messages, at the same paths. Only the edited Target
 * Set's rules are run (the others' issues are not the form's), so a keystroke costs one Target
 * Set's check, not the whole configuration's.
 */
export function checkInContext(
  values: TargetSetFormValues,
  context: TargetSetContext,
): ContextIssues {
  const others = otherTargetSets(context);
  const config: Configuration = {
    options: context.options,
    xsiNetworks: context.xsiNetworks,
    appServers: context.appServers,
    peerNodeGroups: [],
    targetSets: [...others, candidateOf(values)],
  };
  const prefix = `targetSets.${others.length}.`;
  const errors: FieldIssue[] = [];
  const warnings: FieldIssue[] = [];
  for (const issue of checkTargetSetIn(config, others.length)) {
    if (!issue.path.startsWith(prefix)) continue;
    const found = { path: issue.path.slice(prefix.length), message: issue.message };
    (issue.severity === 'error' ? errors : warnings).push(found);
  }
  return { errors, warnings };
}

const ROW_FIELDS = new Set(fieldPaths(targetSetServerSchema));
const PATHS = fieldPaths(targetSetFieldsSchema);
/**
 * The fields that show their own issues: all but the number (a pull-down on Insert only), the
 * family (the Insert button's) and the IP list (its rows, and its root).
 */
const TOP_FIELDS = new Set(PATHS.filter((p) => !['number', 'family', 'servers'].includes(p)));

/** Where an API path shows on the form (null: on no field; the summary lists it). */
export function placeTargetSetIssue(path: string, editing: boolean): string | null {
  if (TOP_FIELDS.has(path)) return path;
  if (path === 'number') return editing ? null : 'number';
  // A section's own issue (primary, secondary, leastLoad) shows on its first field.
  const first = PATHS.find((p) => p.startsWith(`${path}.`));
  if (first) return first;
  if (path === 'servers') return 'servers.root';
  if (/^activeActiveIpfes\.\d+$/.test(path)) return 'activeActiveIpfes';
  const row = /^servers\.(\d+)(?:\.(\w+))?$/.exec(path);
  if (row) {
    const field = row[2] && ROW_FIELDS.has(row[2]) ? row[2] : 'address';
    return `servers.${row[1]}.${field}`;
  }
  return null;
}

export interface AddressChoice {
  address: string;
  server: AppServer;
}

/** Every application server address of one family, in server order. */
export function addressesOfFamily(appServers: AppServer[], family: Family | null): AddressChoice[] {
  return appServers.flatMap((server) =>
    server.addresses
      .filter((address) => family === null || ipFamily(address) === family)
      .map((address) => ({ address, server })),
  );
}

export const serverOf = (appServers: AppServer[], address: string) =>
  address === '' ? undefined : appServers.find((s) => s.addresses.includes(canonical(address)));

/** A row's secondary choices: the same server's other addresses, of the secondary TSA's family. */
export function secondaryChoices(
  appServers: AppServer[],
  rowAddress: string,
  secondaryTsa: string,
): string[] {
  const server = serverOf(appServers, rowAddress);
  if (!server) return [];
  const family = ipFamily(secondaryTsa.trim());
  return server.addresses.filter(
    (a) => a !== canonical(rowAddress) && (family === null || ipFamily(a) === family),
  );
}

/**
 * Why rows have no Secondary IP Address to offer, said beside the Secondary Address (null: they
 * all have one): the listed servers have no address of the secondary TSA's family (besides the
 * row's own, when it is the primary family too).
 */
export function secondaryGap(
  appServers: AppServer[],
  rows: { address: string }[],
  secondaryTsa: string,
): string | null {
  const family = ipFamily(secondaryTsa.trim());
  if (!family) return null;
  const wanted = familyLabel(family);
  const lacking: { name: string; row: number; same: boolean }[] = [];
  let listed = 0;
  rows.forEach((row, i) => {
    const server = serverOf(appServers, row.address);
    if (!server) return;
    listed++;
    if (secondaryChoices(appServers, row.address, secondaryTsa).length === 0) {
      lacking.push({ name: server.name, row: i + 1, same: ipFamily(row.address) === family });
    }
  });
  if (listed === 0) {
    const any = appServers.some((s) => s.addresses.some((a) => ipFamily(a) === family));
    return any
      ? null
      : `No application server has an ${wanted} address, so no row can have a Secondary IP Address of this family`;
  }
  if (lacking.length === 0) return null;
  const what = lacking.every((l) => l.same) ? `a second ${wanted} address` : `an ${wanted} address`;
  const names = [...new Set(lacking.map((l) => l.name))].join(', ');
  if (lacking.length === listed) {
    const other = familyLabel(family === 'ipv4' ? 'ipv6' : 'ipv4');
    return `No listed application server has ${what} to be its Secondary IP Address (${names}): use an ${other} Secondary Address, or add ${wanted} addresses under Network › Application Servers`;
  }
  const at = lacking.map((l) => l.row).join(', ');
  return `${names} (row${lacking.length > 1 ? 's' : ''} ${at}) ${lacking.length > 1 ? 'have' : 'has'} no ${what.replace(/^an? /, '')} to be the Secondary IP Address`;
}
