import {
  ALLOWED_DEVIATION,
  DELETE_AGE_S,
  FACTOR,
  FACTOR_PAIR_RULE,
  defaultsOf,
  familyLabel,
  LEAST_LOAD_SERVING_RULE,
  MESSAGES,
  PEER_NODE_THRESHOLD,
  savedFactors,
  TARGET_SET_NUMBER,
  targetSetFieldsSchema,
  targetSetSchema,
  type TargetSet,
} from '@ipfe/schema';
import { useMemo } from 'react';
import { useFormState, useWatch, type Control } from 'react-hook-form';
import {
  CheckboxField,
  choiceLabel,
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
  usePageSave,
  useSchemaForm,
  type EditPage,
} from '@/components/ui/form';
import { Section } from '@/components/ui/section';
import type { Versioned } from '@/lib/api-client';
import type { TargetSetView } from '../api/get-target-sets';
import { AddressSection } from './address-section';
import { ChangePreview, type ChangePreviewProps } from './change-preview';
import {
  checkInContext,
  configuredSlots,
  editValues,
  insertDefaults,
  placeTargetSetIssue,
  toTargetSetBody,
  type Family,
  type TargetSetContext,
  type TargetSetFormValues,
} from './form-model';
import { useInsertNumber } from './insert-number';
import { IpList } from './ip-list';
import { unconfiguredNote } from './ipfe-slots';
import { useLeastLoadSection } from './least-load-section';
import { messageAt, useLiveIssues } from './live-checks';
import { ServingFields } from './serving-fields';
import { useRefreshedContext } from './use-refreshed-context';

const schema = formSchema(toTargetSetBody, targetSetSchema);
// Fm = Fc = 0 (Least Load only) shows on Fm: said, or taken back, as the algorithm or Fc changes.
// Least Load in an active-active set shows on the algorithm: said, or taken back, as Serving changes.
const RULES = [FACTOR_PAIR_RULE, LEAST_LOAD_SERVING_RULE];
const num = { valueAsNumber: true } as const;
const DEFAULTS = defaultsOf(targetSetFieldsSchema);
const PROTOCOL_CHOICES = [
  { value: 'tcp', label: 'TCP only' },
  { value: 'sctp', label: 'SCTP only' },
  { value: 'both', label: 'Both TCP and SCTP' },
];
const ALGORITHM_CHOICES = [
  { value: 'hash', label: 'Hash' },
  { value: 'leastLoad', label: 'Least Load' },
];

export interface TargetSetFormProps extends EditPage<TargetSet, Versioned<TargetSetView>, number> {
  context: TargetSetContext;
  /** Insert: the family of the button that opened the page. */
  family: Family;
  /** Edit: the Target Set as the API shows it. */
  targetSet: TargetSetView | null;
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
  refreshContext,
  ...page
}: TargetSetFormProps) {
  const editing = targetSet !== null;
  const { context, checked, refreshing, refreshIfRefused } = useRefreshedContext(
    held,
    refreshContext,
  );
  const { options } = context;
  const form = useSchemaForm({
    schema,
    defaultValues: targetSet ? editValues(targetSet, options) : insertDefaults(family, context),
    check: (values) => checkInContext(values, checked.current).errors,
    arrayFields: ['servers'],
    rules: RULES,
  });
  const { register, control } = form;
  const { touchedFields, isSubmitted } = useFormState({ control });
  // OK and Apply: a refusal by the rules that span entities is said only once the configuration
  // read afresh refuses it too; what the operator typed stays as it is.
  const handleSubmit: typeof form.handleSubmit = (onValid, onInvalid) => async (event) => {
    event?.preventDefault();
    const reading = refreshIfRefused(
      (current) => checkInContext(form.getValues(), current).errors.length > 0,
    );
    if (reading) await reading;
    await form.handleSubmit(onValid, onInvalid)(event);
    return undefined;
  };
  // The fields the page's own rendering reads; the IP list, the address sections and the checks
  // that read every field subscribe themselves, so that a keystroke in a row does not render the
  // whole form.
  const [serving, algorithm, leastLoad, chosenNumber] = useWatch({
    control,
    name: ['serving', 'algorithm', 'leastLoad', 'number'],
  });
  const live = useLiveIssues(control, form.getValues, context);
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
  const listIssue = listTouched ? messageAt('servers', live.issues.errors) : undefined;

  const place = (path: string) => placeTargetSetIssue(path, editing);
  // A message carried over from the page that sent the operator here (Apply on Insert).
  const carried = useCarriedOutcome();
  const { onSubmit, outcome, intent } = usePageSave({
    form,
    page,
    inserting: !editing,
    what: editing ? `Target Set ${targetSet.number}` : 'The Target Set',
    place,
    title: (saved) => `Target Set ${saved.number}`,
    keyOf: (saved) => saved.number,
    valuesOf: (saved) => editValues(saved, options),
  });
  const shown = outcome ?? carried;
  // Warnings as the form sees them live, and as the server answered the last save.
  const serverWarnings = shown?.kind === 'saved' ? shown.warnings : [];
  const warningAt = (path: string) => messageAt(path, live.issues.warnings, serverWarnings);

  const configured = configuredSlots(options);
  const slotNote = unconfiguredNote(configured);
  const activeActive = serving === 'activeActive';
  const isHash = algorithm === 'hash';
  const factors = leastLoad ? savedFactors({ algorithm, leastLoad }) : null;
  const leastLoadSection = useLeastLoadSection(algorithm, leastLoad, options.monitorProtocol);
  const number = useInsertNumber(form, {
    chosen: chosenNumber,
    targetSets: context.targetSets,
    editing,
  });
  const addressProps = { family, options, configured, slotNote, activeActive, warningAt };

  return (
    <Form
      form={{ ...form, handleSubmit }}
      onSubmit={onSubmit}
      label={editing ? `Edit Target Set ${targetSet.number}` : 'Insert Target Set'}
      className="entity-form target-set-form"
    >
      <SaveFeedback outcome={shown} onReload={page.onReload} />

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
              options={number.numbers.map((n) => ({ value: String(n), label: String(n) }))}
              warning={number.note}
              help={`Unique ID identifying the Target Set. Format: pull-down of the unused numbers, ${TARGET_SET_NUMBER.min}–${TARGET_SET_NUMBER.max}. Default: the lowest unused`}
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
            options={PROTOCOL_CHOICES}
            help={`A Target Set can support SCTP, TCP, or both. Default: ${choiceLabel(DEFAULTS.protocols, PROTOCOL_CHOICES)}`}
          />
          <CheckboxField
            label="Disable"
            registration={register('disabled')}
            help="Disable this Target Set, but keep it in the configuration: no IPFE serves it."
          />
          <CheckboxField
            label="Initiator Connection Support"
            registration={register('initiatorSupport')}
            help={`Connections initiated by application servers from the Target Set address, with incoming packets routed back to the originating server by port. Default: ${choiceLabel(DEFAULTS.initiatorSupport)}`}
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
            options={ALGORITHM_CHOICES}
            help={`Hash: by hashing the client's address and port. Least Load: to the least loaded server, as the servers report their load (needs Monitoring Protocol Heartbeat; not with Active-Active serving). Default: ${choiceLabel(DEFAULTS.algorithm, ALGORITHM_CHOICES)}`}
          />
        </div>
      </Section>

      <Section
        title="Least Load Parameters"
        disabled={leastLoadSection.locked}
        note={leastLoadSection.note}
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
            help={`Spread the connections of one Peer Node Group across the servers, for redundancy. Default: ${choiceLabel(DEFAULTS.leastLoad.peerNodeAware)}`}
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

      <AddressSection which="primary" {...addressProps} />
      <AddressSection which="secondary" liveError={live.issues.secondaryNote} {...addressProps} />

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

      {live.checks}
      <FormActions intent={intent} busy={refreshing} onCancel={() => page.onDone(null)} />
    </Form>
  );
}

/** The change preview of the IP list as typed (the preview defers its own work). */
function EditedPreview({
  control,
  ...props
}: Omit<ChangePreviewProps, 'servers'> & {
  control: Control<TargetSetFormValues, unknown, TargetSet>;
}) {
  const servers = useWatch({ control, name: 'servers' });
  return <ChangePreview {...props} servers={servers ?? []} />;
}
