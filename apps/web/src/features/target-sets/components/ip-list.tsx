import {
  chancePct,
  DESCRIPTION_LENGTH,
  familyLabel,
  ipFamily,
  TARGET_SET_SERVERS,
  WEIGHT,
  type AppServer,
} from '@ipfe/schema';
import { createContext, memo, use, useCallback, useEffect, useId, useMemo, useRef } from 'react';
import { Link } from 'react-router';
import {
  useFieldArray,
  useFormContext,
  useFormState,
  useWatch,
  type FieldError,
  type UseFieldArrayRemove,
  type UseFormRegister,
} from 'react-hook-form';
import { Button } from '@/components/ui/button';
import { FieldMessage } from '@/components/ui/form';
import { useAfterPaint } from '@/lib/after-paint';
import {
  addressesOfFamily,
  newServerRow,
  secondaryChoices,
  serverOf,
  type Family,
  type TargetSetFormValues,
} from './form-model';
import { ShareChart } from './share-chart';

const formatRange = (range: { start: number; end: number } | undefined) =>
  range ? `${range.start}–${range.end}` : '—';

const weightOf = (w: unknown) => (typeof w === 'number' && Number.isFinite(w) && w > 0 ? w : 0);

/**
 * Every row's chance of selection (%), one frame behind the typing: a keystroke in one row
 * paints its digit first, then every row's chance and the chart follow.
 */
const Chances = createContext<{ total: number; pcts: number[] }>({ total: 0, pcts: [] });

function Chance({ index }: { index: number }) {
  const { total, pcts } = use(Chances);
  const pct = pcts[index];
  return (
    <output aria-label={`Chance of selection, row ${index + 1}`}>
      {total > 0 && pct !== undefined ? `${pct.toFixed(1)} %` : '—'}
    </output>
  );
}

/**
 * The Target Set IP List: one row per application server address, chosen from the servers of the
 * Target Set's family. Each row shows its Initiator Port Range and chance of selection, which
 * follow the weights as they are typed, and the chart shows every server's share.
 */
export function IpList({
  appServers,
  family,
  listError,
}: {
  appServers: AppServer[];
  family: Family;
  /** An issue of the list as a whole (partly overlapping lists, all weights 0). */
  listError: string | undefined;
}) {
  const { control, register, setValue, getValues, getFieldState, trigger, clearErrors } =
    useFormContext<TargetSetFormValues>();
  // The list's own issue (overlap, all weights 0) as the last save found it goes once the list
  // changes; from then on the live check (`listError`) tells.
  const listChanged = useCallback(() => clearErrors('servers.root' as 'servers'), [clearErrors]);
  const { errors } = useFormState({ control, name: 'servers' });
  const { fields, append, remove } = useFieldArray({ control, name: 'servers' });
  // Subscribed here, not at the form (watch() would render the whole form at every keystroke);
  // read with getValues(): right after a row is removed, the rows must match `fields`.
  useWatch({ control, name: 'servers' });
  const rows = getValues('servers') ?? [];
  const secondaryTsa = useWatch({ control, name: 'secondary.address' }) ?? '';
  const hasSecondary = secondaryTsa.trim() !== '';
  const id = useId();

  const all = useMemo(() => addressesOfFamily(appServers, family), [appServers, family]);
  // `rows` is changed in place: its addresses, spelled out, tell when a row's address changes.
  const rowAddresses = rows.map((r) => r.address).join(' ');
  const chosen = useMemo(() => new Set(rowAddresses.split(' ').filter(Boolean)), [rowAddresses]);
  const weights = useAfterPaint(rows.map((r) => weightOf(r.weight)).join(' '), rows.length);
  const chances = useMemo(() => {
    const list = weights === '' ? [] : weights.split(' ').map(Number);
    const total = list.reduce((sum, w) => sum + w, 0);
    return { total, pcts: list.map((w) => chancePct(w, total)) };
  }, [weights]);
  // The chart's labels name each row's server: looked up as the addresses change, not as weights do.
  const shareLabels = useMemo(
    () =>
      rowAddresses.split(' ').map((address, i) => {
        if (!address) return `row ${i + 1}`;
        const server = serverOf(appServers, address);
        return server ? `${address} (${server.name})` : address;
      }),
    [rowAddresses, appServers],
  );

  // A row's Secondary IP Address follows its IP Address and the secondary TSA's family: when
  // either changes, a value the pull-down no longer offers goes, and the server's only address of
  // that family is chosen. The pull-down is controlled, so what it shows is what is saved.
  const secondaryFamily = hasSecondary ? ipFamily(secondaryTsa.trim()) : null;
  const followed = useRef(new Map<string, string>());
  useEffect(() => {
    const seen = followed.current;
    fields.forEach((field, i) => {
      const row = getValues(`servers.${i}`);
      if (!row) return;
      const key = `${row.address}|${secondaryFamily ?? ''}`;
      const before = seen.get(field.id);
      seen.set(field.id, key);
      // A row as loaded keeps its value; only a change made here moves it.
      if (before === undefined || before === key || !hasSecondary) return;
      const choices = secondaryChoices(appServers, row.address, secondaryTsa);
      const current = row.secondaryAddress;
      const next = choices.includes(current) ? current : choices.length === 1 ? choices[0]! : '';
      if (next === current) return;
      const name = `servers.${i}.secondaryAddress` as const;
      setValue(name, next, { shouldDirty: true });
      if (getFieldState(name).error) void trigger(name);
    });
  }, [
    fields,
    rowAddresses,
    secondaryFamily,
    hasSecondary,
    secondaryTsa,
    appServers,
    getValues,
    setValue,
    getFieldState,
    trigger,
  ]);

  const available = all.filter((c) => !chosen.has(c.address));
  const canAdd = available.length > 0 && fields.length < TARGET_SET_SERVERS.max;
  const familyName = familyLabel(family);
  const rowErrors = errors.servers as
    | (Record<number, Partial<Record<keyof TargetSetFormValues['servers'][number], FieldError>>> & {
        root?: FieldError;
      })
    | undefined;
  const listMessage =
    listError ?? rowErrors?.root?.message ?? (errors.servers as FieldError | undefined)?.message;

  return (
    <div className="ip-list">
      {all.length === 0 && (
        <p className="field-note">
          No application server has an {familyName} address yet. First an {familyName} XSI network
          under <Link to="/xsi-networks">Network › XSI Networks</Link>, then servers with{' '}
          {familyName} addresses on it under{' '}
          <Link to="/app-servers">Network › Application Servers</Link>.
        </p>
      )}
      <table className="grid-table ip-list-table" aria-describedby={`${id}-help`}>
        <caption className="visually-hidden">Target Set IP List</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">IP Address</th>
            <th scope="col">Secondary IP Address</th>
            <th scope="col">Description</th>
            <th scope="col">Weighting</th>
            <th scope="col">Chance of selection</th>
            <th scope="col">Initiator Port Range</th>
            <th scope="col">
              <span className="visually-hidden">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          <Chances value={chances}>
            {fields.map((field, index) => {
              const row = rows[index];
              const err = rowErrors?.[index];
              return (
                <IpListRow
                  key={field.id}
                  cellId={`${id}-${field.id}`}
                  index={index}
                  address={row?.address ?? ''}
                  secondaryAddress={row?.secondaryAddress ?? ''}
                  addressError={err?.address?.message}
                  secondaryError={err?.secondaryAddress?.message}
                  descriptionError={err?.description?.message}
                  weightError={err?.weight?.message}
                  removable={fields.length > TARGET_SET_SERVERS.min}
                  appServers={appServers}
                  all={all}
                  chosen={chosen}
                  secondaryTsa={secondaryTsa}
                  listChanged={listChanged}
                  remove={remove}
                  register={register}
                />
              );
            })}
          </Chances>
        </tbody>
      </table>
      {listMessage && (
        <p className="field-error" id={`${id}-list-error`} role="alert">
          <span aria-hidden="true">✖ </span>
          {listMessage}
        </p>
      )}
      <div className="ip-list-foot">
        <Button
          onClick={() => {
            listChanged();
            append(newServerRow(), { focusName: `servers.${fields.length}.address` });
          }}
          disabled={!canAdd}
        >
          Add server
        </Button>
        <span className="field-note" id={`${id}-help`}>
          {fields.length} of at most {TARGET_SET_SERVERS.max} rows. IP Address: an application
          server address of the Target Set&apos;s family ({familyName}), each once. Secondary IP
          Address: the same server&apos;s other address, required when the Target Set has a
          Secondary Address. Weighting: {WEIGHT.min}–{WEIGHT.max}, default {WEIGHT.default}; chance
          of selection = weight / sum of weights × 100. Two Target Sets&apos; lists must be
          identical or disjoint.
        </span>
      </div>
      <ShareChart
        title="Share of new connections per server"
        shares={shareLabels.slice(0, rows.length).map((label, i) => ({
          label,
          pct: chances.pcts[i] ?? 0,
        }))}
      />
    </div>
  );
}

interface IpListRowProps {
  /** The start of the ids of the row's cells (the list's id and the row's field id). */
  cellId: string;
  index: number;
  address: string;
  secondaryAddress: string;
  addressError: string | undefined;
  secondaryError: string | undefined;
  descriptionError: string | undefined;
  weightError: string | undefined;
  removable: boolean;
  appServers: AppServer[];
  all: ReturnType<typeof addressesOfFamily>;
  /** The addresses the list's rows hold. */
  chosen: Set<string>;
  secondaryTsa: string;
  listChanged: () => void;
  remove: UseFieldArrayRemove;
  /** Given, not read from the form's context: the context changes with every keystroke. */
  register: UseFormRegister<TargetSetFormValues>;
}

/**
 * One row of the IP list. Its props are what it shows, so that a keystroke in one row renders
 * that row only (the chance of selection of every row follows, see `Chances`).
 */
const IpListRow = memo(function IpListRow({
  cellId,
  index,
  address,
  secondaryAddress,
  addressError,
  secondaryError,
  descriptionError,
  weightError,
  removable,
  appServers,
  all,
  chosen,
  secondaryTsa,
  listChanged,
  remove,
  register,
}: IpListRowProps) {
  const hasSecondary = secondaryTsa.trim() !== '';
  const secondaryFamily = hasSecondary ? ipFamily(secondaryTsa.trim()) : null;
  const server = serverOf(appServers, address);
  const own = all.filter((c) => c.address === address || !chosen.has(c.address));
  const secondaries = secondaryChoices(appServers, address, secondaryTsa);
  // Without a secondary TSA a row saves no secondary address, whatever it held.
  const secondaryValue = hasSecondary ? secondaryAddress : '';
  const secondaryPrompt = !hasSecondary
    ? 'None'
    : address === ''
      ? 'Choose the IP Address first'
      : secondaries.length === 0
        ? `No ${secondaryFamily ? `${familyLabel(secondaryFamily)} ` : 'other '}address`
        : 'Choose an address…';
  const n = index + 1;
  const cell = (name: string) => `${cellId}-${name}`;
  const addressRegistration = register(`servers.${index}.address`);
  return (
    <tr>
      <td className="num">{n}</td>
      <td>
        <select
          id={cell('address')}
          className="input"
          aria-label={`IP Address, row ${n}`}
          aria-invalid={addressError ? true : undefined}
          aria-describedby={addressError ? `${cell('address')}-error` : undefined}
          {...addressRegistration}
          value={address}
          onChange={(event) => {
            listChanged();
            void addressRegistration.onChange(event);
          }}
        >
          <option value="">Choose an address…</option>
          {address !== '' && !own.some((c) => c.address === address) && (
            <option value={address}>{address}</option>
          )}
          {own.map((c) => (
            <option key={c.address} value={c.address}>
              {c.address} ({c.server.name})
            </option>
          ))}
        </select>
        <FieldMessage id={cell('address')} error={addressError} />
      </td>
      <td>
        <select
          id={cell('secondary')}
          className="input"
          aria-label={`Secondary IP Address, row ${n}`}
          disabled={!hasSecondary}
          title={hasSecondary ? undefined : 'Set a Secondary Address first'}
          aria-invalid={secondaryError ? true : undefined}
          aria-describedby={secondaryError ? `${cell('secondary')}-error` : undefined}
          {...register(`servers.${index}.secondaryAddress`)}
          value={secondaryValue}
        >
          <option value="">{secondaryPrompt}</option>
          {secondaryValue !== '' && !secondaries.includes(secondaryValue) && (
            <option value={secondaryValue}>{secondaryValue}</option>
          )}
          {secondaries.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
        <FieldMessage id={cell('secondary')} error={hasSecondary ? secondaryError : undefined} />
      </td>
      <td>
        <input
          id={cell('description')}
          className="input"
          aria-label={`Description, row ${n}`}
          maxLength={DESCRIPTION_LENGTH.max + 10}
          aria-invalid={descriptionError ? true : undefined}
          aria-describedby={descriptionError ? `${cell('description')}-error` : undefined}
          {...register(`servers.${index}.description`)}
        />
        <FieldMessage id={cell('description')} error={descriptionError} />
      </td>
      <td>
        <input
          id={cell('weight')}
          className="input input-narrow"
          type="number"
          aria-label={`Weighting, row ${n}`}
          aria-invalid={weightError ? true : undefined}
          aria-describedby={weightError ? `${cell('weight')}-error` : undefined}
          {...register(`servers.${index}.weight`, {
            valueAsNumber: true,
            onChange: listChanged,
          })}
        />
        <FieldMessage id={cell('weight')} error={weightError} />
      </td>
      <td className="num">
        <Chance index={index} />
      </td>
      <td className="num">
        <output aria-label={`Initiator Port Range, row ${n}`}>
          {formatRange(server?.initiatorPortRange)}
        </output>
      </td>
      <td>
        <Button
          variant="link"
          aria-label={`Remove row ${n}${address ? ` (${address})` : ''}`}
          disabled={!removable}
          onClick={() => {
            listChanged();
            remove(index);
          }}
        >
          Remove
        </Button>
      </td>
    </tr>
  );
});
