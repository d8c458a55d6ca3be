import {
  ALLOWED_DEVIATION,
  DELETE_AGE_S,
  FACTOR,
  FACTOR_PAIR_RULE,
  familyLabel,
  IPFE_SLOTS,
  LEAST_LOAD_SERVING_RULE,
  leastLoadSchema,
  MESSAGES,
  PEER_NODE_THRESHOLD,
  savedFactors,
  slotLabel,
  standbyOf,
  unusedTargetSetNumbers,
  targetSetSchema,
  type IpfeSlot,
  type TargetSet,
} from '@ipfe/schema';
import { useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import type { Control } from 'react-hook-form';
import { useFormState, useWatch } from 'react-hook-form';
import { Link } from 'react-router';
import {
  CheckboxField,
  FieldRow,
  Form,
  FormActions,
  formSchema,
  InputField,
  RadioGroupField,
  ReadOnlyField,
  SaveFeedback,
  SelectField,
  useCarriedOutcome,
  useSave,
  useSchemaForm,
  type SaveOutcome,
} from '@/components/ui/form';
import { Section } from '@/components/ui/section';
import type { Versioned } from '@/lib/api-client';
import { savedAs } from '@/lib/commits';
import type { TargetSetView } from '../api/get-target-sets';
import {
  checkInContext,
  configuredSlots,
  editValues,
  insertDefaults,
  placeTargetSetIssue,
  secondaryGap,
  toTargetSetBody,
  type ContextIssues,
  type Family,
  type TargetSetContext,
  type TargetSetFormValues,
} from './form-model';
import { ChangePreview, type ChangePreviewProps } from './change-preview';
import { IpList } from './ip-list';
import { ServingFields } from './serving-fields';

const schema = formSchema(toTargetSetBody, targetSetSchema);
// Fm = Fc = 0 (Least Load only) shows on Fm: said, or taken back, as the algorithm or Fc changes.
// Least Load in an active-active set shows on the algorithm: said, or taken back, as Serving changes.
const RULES = [FACTOR_PAIR_RULE, LEAST_LOAD_SERVING_RULE];
const num = { valueAsNumber: true } as const;
const ACTIVE_ACTIVE_NOTE = 'Not used: the Target Set is served active-active (see Serving).';

export interface TargetSetFormProps {
  context: TargetSetContext;
  /** Insert: the family of the button that opened the page. */
  family: Family;
  /** Edit: the Target Set as the API shows it. */
  targetSet: TargetSetView | null;
  save: (body: TargetSet) => Promise<Versioned<TargetSetView>>;
  /** After OK (and on Cancel): back to the View. */
  onDone: (outcome: SaveOutcome | null) => void;
  /** After Apply on Insert: the Target Set now exists and is edited from here on. */
  onInserted: (number: number, outcome: SaveOutcome) => void;
  /** After a stale save: load the current version. */
  onReload: () => void;
  /**
   * Reads the rest of the configuration again, from the API. Another client may have changed it
   * since the page opened (an admin configures BGP): a save the checks refuse against what the
   * page holds is checked again against it.
   */
  refreshContext?: () => Promise<TargetSetContext>;
}

/** Target Sets [Insert] and [Edit]: the sections and fields of the source page. */
export function TargetSetForm({
  context: held,
  family,
  targetSet,
  save,
  onDone,
  onInserted,
  onReload,
  refreshContext,
}: TargetSetFormProps) {
  const editing = targetSet !== null;
  // The configuration read afresh at a save holds until the page is given a newer one.
  const [fresh, setFresh] = useState<{ over: TargetSetContext; context: TargetSetContext } | null>(
    null,
  );
  const context = fresh?.over === held ? fresh.context : held;
  // What the form's checks read; a save goes on from a refresh before the page renders it.
  const checked = useRef(context);
  checked.current = context;
  const { options } = context;
  const form = useSchemaForm({
    schema,
    defaultValues: targetSet ? editValues(targetSet, options) : insertDefaults(family, context),
    check: (values) => checkInContext(values, checked.current).errors,
    arrayFields: ['servers'],
    rules: RULES,
  });
  const { register, control, setValue, trigger } = form;
  const { isSubmitting, touchedFields, isSubmitted } = useFormState({ control });
  const [refreshing, setRefreshing] = useState(false);
  // OK and Apply: a refusal by the rules that span entities is said only once the configuration
  // read afresh refuses it too; what the operator typed stays as it is.
  const handleSubmit: typeof form.handleSubmit = (onValid, onInvalid) => async (event) => {
    event?.preventDefault();
    const refused = checkInContext(form.getValues(), checked.current).errors.length > 0;
    if (refreshContext && refused) {
      setRefreshing(true);
      try {
        const current = await refreshContext();
        checked.current = current;
        setFresh({ over: held, context: current });
      } catch {
        // Unreadable now: the checks keep what the page holds, and the refusal stands.
      } finally {
        setRefreshing(false);
      }
    }
    await form.handleSubmit(onValid, onInvalid)(event);
    return undefined;
  };
  // The fields the page's own rendering reads; the IP list and the checks that read every field
  // subscribe themselves (LiveChecks, EditedPreview), so that a keystroke in a row does not
  // render the whole form.
  const [serving, algorithm, leastLoad, secondary, primary, chosenNumber] = useWatch({
    control,
    name: ['serving', 'algorithm', 'leastLoad', 'secondary', 'primary', 'number'],
  });
  const [live, setLive] = useState<LiveIssues>(() => liveIssues(form.getValues(), context));
  const savedList = useMemo(
    () =>
      targetSet && {
        algorithm: targetSet.algorithm,
        servers: targetSet.servers.map((s) => ({ address: s.address, weight: s.weight })),
      },
    [targetSet],
  );
  const serverNames = useMemo(
    () => new Map(context.appServers.flatMap((s) => s.addresses.map((a) => [a, s.name] as const))),
    [context.appServers],
  );
  const listTouched = isSubmitted || Boolean(touchedFields.servers);
  const listIssue = listTouched
    ? live.errors.find((e) => e.path === 'servers')?.message
    : undefined;

  const place = (path: string) => placeTargetSetIssue(path, editing);
  // A message carried over from the page that sent the operator here (Apply on Insert).
  const carried = useCarriedOutcome();
  const { onSubmit, outcome, intent } = useSave({
    form,
    save: (body: TargetSet) => save(body),
    place,
    what: editing ? `Target Set ${targetSet.number}` : 'The Target Set',
    onSaved: (saved, how) => {
      const result: SaveOutcome = {
        kind: 'saved',
        message: savedAs(`Target Set ${saved.data.number}`, saved),
        warnings: saved.data.warnings,
      };
      if (how === 'ok') {
        onDone(result);
        return null;
      }
      form.reset(editValues(saved.data, options));
      if (!editing) onInserted(saved.data.number, result);
      return result;
    },
  });
  const shown = outcome ?? carried;
  // Warnings as the form sees them live, and as the server answered the last save.
  const serverWarnings = shown?.kind === 'saved' ? shown.warnings : [];
  const warningAt = (path: string) =>
    (live.warnings.find((w) => w.path === path) ?? serverWarnings.find((w) => w.path === path))
      ?.message;

  const configured = configuredSlots(options);
  const unconfigured = IPFE_SLOTS.filter((s) => !configured.includes(s));
  const slotChoices = IPFE_SLOTS.map((slot) => ({
    value: slot,
    label: slotLabel(slot),
    disabled: !configured.includes(slot),
  }));
  const slotNote =
    unconfigured.length > 0 ? (
      <>
        {unconfigured.map(slotLabel).join(', ')}: not configured.{' '}
        <Link to="/options">{MESSAGES.configureIpfe}</Link>.
      </>
    ) : undefined;
  const activeActive = serving === 'activeActive';
  const standbyText = (active: IpfeSlot | '' | undefined) => {
    if (activeActive) return 'None (served active-active)';
    if (!active) return 'None';
    const standby = standbyOf(options, active);
    return standby
      ? slotLabel(standby)
      : `None (the mate of ${slotLabel(active)} is not configured)`;
  };

  const isHash = algorithm === 'hash';
  const factors = leastLoad ? savedFactors({ algorithm, leastLoad }) : null;
  // Hash does not use the Least Load fields, so they are greyed out — unless one is out of range
  // (Hash keeps them, range-checked): an error never sits on a field that cannot be corrected.
  // Once open under Hash, the section stays open until the algorithm changes, so that it does not
  // lock under the operator's typing.
  const leastLoadInvalid = !leastLoadSchema.safeParse(leastLoad).success;
  const [openUnderHash, setOpenUnderHash] = useState(false);
  useEffect(() => {
    if (!isHash) setOpenUnderHash(false);
    else if (leastLoadInvalid) setOpenUnderHash(true);
  }, [isHash, leastLoadInvalid]);
  const leastLoadLocked = isHash && !openUnderHash && !leastLoadInvalid;
  const hasSecondary = (secondary?.address ?? '').trim() !== '';
  const { secondaryNote } = live;

  // Insert: the TS Number pull-down offers the numbers unused as the Target Sets were last read.
  // When another client has taken the chosen one meanwhile, it is no longer offered: the form
  // then holds, and shows, the lowest unused number, and says why it changed.
  const numbers = unusedTargetSetNumbers(context.targetSets);
  const [numberTaken, setNumberTaken] = useState<number | null>(null);
  const numberOffered = editing || numbers.includes(chosenNumber);
  useEffect(() => {
    // NaN: no number was left to offer, and the note already says whose was taken.
    if (numberOffered || Number.isNaN(chosenNumber)) return;
    setNumberTaken(chosenNumber);
    setValue('number', numbers[0] ?? Number.NaN, { shouldDirty: true });
    void trigger('number');
  }, [numberOffered, chosenNumber, numbers, setValue, trigger]);
  const numberNote =
    numberTaken !== null && numberTaken !== chosenNumber
      ? `Target Set ${numberTaken} was inserted by someone else meanwhile; ${Number.isNaN(chosenNumber) ? 'no number is left' : `${chosenNumber} is the lowest unused number now`}.`
      : undefined;
  const monitorNote =
    options.monitorProtocol !== 'heartbeat'
      ? `Least Load needs Application Server Monitoring set to Heartbeat; it is now ${options.monitorProtocol}.`
      : undefined;

  return (
    <Form
      form={{ ...form, handleSubmit }}
      onSubmit={onSubmit}
      label={editing ? `Edit Target Set ${targetSet.number}` : 'Insert Target Set'}
      className="entity-form target-set-form"
    >
      <SaveFeedback outcome={shown} onReload={onReload} />

      <Section title="Target Set">
        <div className="form-grid">
          {editing ? (
            <ReadOnlyField
              label="TS Number"
              value={String(targetSet.number)}
              help={`${MESSAGES.readOnly}. Unique ID identifying the Target Set.`}
            />
          ) : (
            <SelectField
              label="TS Number"
              required
              registration={register('number', num)}
              options={numbers.map((n) => ({ value: String(n), label: String(n) }))}
              warning={numberNote}
              help="Unique ID identifying the Target Set. Format: pull-down of the unused numbers, 1–32. Default: the lowest unused"
            />
          )}
          <ReadOnlyField
            label="Address family"
            value={familyLabel(family)}
            help={`Chosen by the Insert ${familyLabel(family)} button; every primary address of the Target Set is ${familyLabel(family)}.${editing ? ` ${MESSAGES.readOnly}.` : ''}`}
          />
          <RadioGroupField
            label="Protocols"
            registration={register('protocols')}
            options={[
              { value: 'tcp', label: 'TCP only' },
              { value: 'sctp', label: 'SCTP only' },
              { value: 'both', label: 'Both TCP and SCTP' },
            ]}
            help="A Target Set can support SCTP, TCP, or both. Default: Both TCP and SCTP"
          />
          <CheckboxField
            label="Disable"
            registration={register('disabled')}
            help="Disable this Target Set, but keep it in the configuration: no IPFE serves it."
          />
          <CheckboxField
            label="Initiator Connection Support"
            registration={register('initiatorSupport')}
            help="Connections initiated by application servers from the Target Set address, with incoming packets routed back to the originating server by port. Default: off"
          />
          <InputField
            label="Delete Age (s)"
            type="number"
            required
            registration={register('deleteAgeSeconds', num)}
            warning={warningAt('deleteAgeSeconds')}
            help={`Connections idle this long are dropped. Range: ${DELETE_AGE_S.min}–${DELETE_AGE_S.max.toLocaleString('en-US')}. Default: ${DELETE_AGE_S.default}. It is inadvisable to go below the default; long SCTP heartbeat intervals may need more.`}
          />
          <RadioGroupField
            label="Load Balance Algorithm"
            registration={register('algorithm')}
            options={[
              { value: 'hash', label: 'Hash' },
              { value: 'leastLoad', label: 'Least Load' },
            ]}
            help="Hash: by hashing the client's address and port. Least Load: to the least loaded server, as the servers report their load (needs Monitoring Protocol Heartbeat; not with Active-Active serving). Default: Least Load"
          />
        </div>
      </Section>

      <Section
        title="Least Load Parameters"
        disabled={leastLoadLocked}
        note={
          leastLoadLocked
            ? 'Not used by the Hash algorithm'
            : isHash
              ? 'Not used by the Hash algorithm, but kept as typed: correct the value marked below'
              : monitorNote
        }
      >
        <div className="form-grid">
          <InputField
            label="MPS Factor"
            type="number"
            required
            registration={register('leastLoad.mpsFactor', num)}
            help={`Factor Fm in the load equation L = (Fm·m/mtotal + Fc·c/ctotal)·Whigh/w. Range: ${FACTOR.min}–${FACTOR.max}. Default: ${FACTOR.default}`}
          />
          <InputField
            label="Connection Count Factor"
            type="number"
            required
            registration={register('leastLoad.connectionCountFactor', num)}
            help={`Factor Fc in the load equation. Range: ${FACTOR.min}–${FACTOR.max}. Default: ${FACTOR.default}. With Least Load, Fm + Fc is normalized to 100 on commit; with Hash both are kept as typed.`}
          />
          <FieldRow id="normalized-factors" label="Saved as (Fm / Fc)" labelFor={false}>
            <output
              className="normalized"
              aria-labelledby="normalized-factors-label"
              aria-live="polite"
            >
              {factors
                ? `will be saved as ${factors.mpsFactor} / ${factors.connectionCountFactor}`
                : '—'}
            </output>
          </FieldRow>
          <InputField
            label="Allowed Deviation"
            type="number"
            required
            registration={register('leastLoad.allowedDeviation', num)}
            help={`Points of load within which servers count as equally loaded and share new connections by weighted round-robin. Range: ${ALLOWED_DEVIATION.min}–${ALLOWED_DEVIATION.max}. Default: ${ALLOWED_DEVIATION.default}`}
          />
          <CheckboxField
            label="Peer Node Aware Least Load"
            registration={register('leastLoad.peerNodeAware')}
            help="Spread the connections of one Peer Node Group across the servers, for redundancy. Default: on"
          />
          <InputField
            label="Peer Node Group Distribution Threshold"
            type="number"
            required
            registration={register('leastLoad.peerNodeThreshold', num)}
            help={`D: servers whose group count exceeds the lowest by D or more are passed over; 0 turns the group filter off. Range: ${PEER_NODE_THRESHOLD.min}–${PEER_NODE_THRESHOLD.max}. Default: ${PEER_NODE_THRESHOLD.default}`}
          />
        </div>
      </Section>

      <Section title="Serving">
        <ServingFields
          register={(name) => register(name)}
          activeActive={activeActive}
          configured={configured}
          slotNote={slotNote}
        />
      </Section>

      <Section title="Primary Public IP Address">
        <div className="form-grid">
          <InputField
            label="Address"
            required
            autoComplete="off"
            placeholder={family === 'ipv4' ? '192.0.2.10' : '2001:db8::10'}
            registration={register('primary.address')}
            warning={warningAt('primary.address')}
            help={`Public ${familyLabel(family)} address presented to the outside world (the Target Set Address). Must be on an XSI network. Do not edit if in use by a local node.`}
          />
          <RadioGroupField
            label="Active IPFE"
            registration={register('primary.activeIpfe')}
            options={slotChoices}
            disabled={activeActive}
            note={activeActive ? ACTIVE_ACTIVE_NOTE : slotNote}
            help="The IPFE that primarily handles traffic for this address; if it fails, its mate takes over (A1↔A2, B1↔B2)."
          />
          <ReadOnlyField
            label="Preferred Standby"
            value={standbyText(primary?.activeIpfe)}
            help="The mate of the Active IPFE, set when the Active IPFE is chosen."
          />
        </div>
      </Section>

      <Section title="Secondary Public IP Address">
        <div className="form-grid">
          <InputField
            label="Secondary Address"
            autoComplete="off"
            registration={register('secondary.address')}
            liveError={secondaryNote}
            help="Optional. For SCTP, a failover address of the association; for TCP, an independent address. When set, every IP List row needs a Secondary IP Address."
          />
          <RadioGroupField
            label="Active IPFE for secondary address"
            registration={register('secondary.activeIpfe')}
            options={slotChoices}
            disabled={!hasSecondary || activeActive}
            note={
              activeActive
                ? ACTIVE_ACTIVE_NOTE
                : hasSecondary
                  ? slotNote
                  : 'Set a Secondary Address first.'
            }
            warning={warningAt('secondary.activeIpfe')}
            help="Should complement the Active IPFE, to give SCTP dual-homed traffic an alternative path."
          />
          <ReadOnlyField
            label="Preferred Standby for secondary address"
            value={hasSecondary ? standbyText(secondary?.activeIpfe) : 'None'}
            help="The mate of the secondary address's Active IPFE."
          />
        </div>
      </Section>

      <Section title="Target Set IP List">
        <IpList appServers={context.appServers} family={family} listError={listIssue} />
      </Section>

      <Section
        title="Change preview"
        note={
          editing
            ? 'What this edit does to the saved Target Set, computed in the browser with the forwarding engine'
            : 'Computed in the browser with the forwarding engine'
        }
      >
        <EditedPreview
          control={control}
          saved={savedList}
          algorithm={isHash ? 'hash' : 'leastLoad'}
          names={serverNames}
        />
      </Section>

      <LiveChecks control={control} context={context} onChange={setLive} />
      <FormActions
        intent={intent}
        busy={isSubmitting || refreshing}
        onCancel={() => onDone(null)}
      />
    </Form>
  );
}

type FormControl = Control<TargetSetFormValues, unknown, TargetSet>;

interface LiveIssues extends ContextIssues {
  /** A Secondary Address the rows' servers have no address of its family for. */
  secondaryNote: string | null;
}

function liveIssues(values: TargetSetFormValues, context: TargetSetContext): LiveIssues {
  return {
    ...checkInContext(values, context),
    // Live, not when the field is left: it follows the rows' choices, and a message that appeared
    // as the field is left would move Add server away from under the operator's click.
    secondaryNote: secondaryGap(
      context.appServers,
      values.servers ?? [],
      values.secondary?.address ?? '',
    ),
  };
}

/**
 * The rules that span entities, on every field as typed, one render behind the typing (a
 * keystroke paints first): the form hears of them only when what they say changes.
 */
function LiveChecks({
  control,
  context,
  onChange,
}: {
  control: FormControl;
  context: TargetSetContext;
  onChange: (issues: LiveIssues) => void;
}) {
  const values = useDeferredValue(useWatch({ control }) as TargetSetFormValues);
  const said = JSON.stringify(useMemo(() => liveIssues(values, context), [values, context]));
  useEffect(() => onChange(JSON.parse(said) as LiveIssues), [said, onChange]);
  return null;
}

/** The change preview of the IP list as typed (the preview defers its own work). */
function EditedPreview({
  control,
  ...props
}: Omit<ChangePreviewProps, 'servers'> & { control: FormControl }) {
  const servers = useWatch({ control, name: 'servers' });
  return <ChangePreview {...props} servers={servers ?? []} />;
}
