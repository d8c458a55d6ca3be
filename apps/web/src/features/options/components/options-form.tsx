import { useId } from 'react';
import {
  AGENT_PORT_DEFAULT,
  CONNECT_TIMEOUT_S,
  CONNECT_TRY_INTERVAL_S,
  defaultsOf,
  fieldPaths,
  FORWARDED_PORTS,
  ICMP_REJECTS,
  IMBALANCE_MIN_PPS,
  IMBALANCE_THRESHOLD_PCT,
  IPFE_SLOTS,
  LEAST_LOAD_THRESHOLD,
  MATE_HEARTBEAT_PORT_DEFAULT,
  MATE_INTERVAL_MS,
  MATE_OF,
  MATE_TIMEOUT_MS,
  MESSAGES,
  MONITORING_PORT_DEFAULT,
  optionsSchema,
  PACKET_RATE_LIMIT_PPS,
  PORT,
  REJECT_OPTION_LABELS,
  SCTP_REJECT_OPTIONS,
  TCP_REJECT_OPTIONS,
  type IpfeSlot,
  type Options,
  type OptionsInput,
  type TcpRejectOption,
} from '@ipfe/schema';
import { useFormContext } from 'react-hook-form';
import {
  CheckboxField,
  choiceLabel,
  Form,
  FieldMessage,
  formSchema,
  InputField,
  RadioGroupField,
  SaveFeedback,
  SelectField,
  useFieldError,
  useSave,
  useSchemaForm,
} from '@/components/ui/form';
import { Button } from '@/components/ui/button';
import { Section } from '@/components/ui/section';
import { savedAs } from '@/lib/commits';
import { useUpdateOptions } from '../api/update-options';
import { DATA_PATH_SUPPORT } from '../data-path-support';
import { bgpBody, bgpFormValues, BgpSection, type BgpFormValues } from './bgp-section';

/** The schema's options, but for what is typed otherwise: a node left empty, the ports, BGP. */
export type OptionsFormValues = Omit<Options, 'ipfe' | 'forwardedPorts' | 'bgp'> & {
  /** An empty address: the node is not configured. */
  ipfe: Record<IpfeSlot, { address: string; agentPort: number }>;
  /** Typed as a list: "3868, 3869". */
  forwardedPorts: string;
  bgp: BgpFormValues;
};

export function toFormValues(options: Options): OptionsFormValues {
  const ipfe = Object.fromEntries(
    IPFE_SLOTS.map((slot) => {
      const node = options.ipfe[slot];
      return [
        slot,
        { address: node?.address ?? '', agentPort: node?.agentPort ?? AGENT_PORT_DEFAULT },
      ];
    }),
  ) as OptionsFormValues['ipfe'];
  return {
    ...options,
    ipfe,
    forwardedPorts: options.forwardedPorts.join(', '),
    bgp: bgpFormValues(options.bgp),
  };
}

/** An empty address means "not configured"; the ports are typed as one list. */
export function toOptionsBody(values: OptionsFormValues): OptionsInput {
  const ipfe = Object.fromEntries(
    IPFE_SLOTS.map((slot) => {
      const node = values.ipfe[slot];
      const address = node.address.trim();
      return [slot, address === '' ? null : { address, agentPort: node.agentPort }];
    }),
  ) as OptionsInput['ipfe'];
  const ports = values.forwardedPorts
    .split(/[\s,]+/)
    .filter((p) => p !== '')
    .map((p) => (/^\d+$/.test(p) ? Number(p) : Number.NaN));
  return { ...values, ipfe, forwardedPorts: ports, bgp: bgpBody(values.bgp) };
}

const schema = formSchema(toOptionsBody, optionsSchema);

/** The options' fields, as the schema names them ("ipfe.A1.address", "mateIntervalMs", "bgp.asn"). */
const FIELDS = new Set(fieldPaths(optionsSchema));

/** Where an API path shows on this form. */
export function placeOptionsIssue(path: string): string | null {
  // Lists: the ports are typed in one box; the peers' own issue is the list's.
  if (path.startsWith('forwardedPorts')) return 'forwardedPorts';
  if (path === 'bgp.peers') return 'bgp.peers.root';
  if (FIELDS.has(path)) return path;
  if (/^ipfe\.(A1|A2|B1|B2)$/.test(path)) return `${path}.address`;
  if (/^bgp\.peers\.\d+\.(address|asn)$/.test(path)) return path;
  if (/^bgp\.peers\.\d+$/.test(path)) return `${path}.address`;
  if (path === 'bgp') return 'bgp.enabled';
  return null;
}

const num = { valueAsNumber: true } as const;
const PORT_RANGE = `${PORT.min}–${PORT.max}`;
const DEFAULTS = defaultsOf(optionsSchema);
const count = (n: number) => n.toLocaleString('en-US');
/** A reject choice as the pull-down names it: an ICMP one with what an IPv6 client gets. */
const rejectChoice = (value: TcpRejectOption) => ({
  value,
  label:
    value in ICMP_REJECTS
      ? `${REJECT_OPTION_LABELS[value]} (ICMPv6: ${ICMP_REJECTS[value as keyof typeof ICMP_REJECTS].icmpv6Name})`
      : REJECT_OPTION_LABELS[value],
});
const TCP_REJECT_CHOICES = TCP_REJECT_OPTIONS.map(rejectChoice);
const SCTP_REJECT_CHOICES = SCTP_REJECT_OPTIONS.map(rejectChoice);
const MONITOR_CHOICES = [
  { value: 'heartbeat', label: 'Heartbeat' },
  { value: 'tcpConnectOnly', label: 'TCP connect only' },
  { value: 'disabled', label: 'Disabled' },
];

/** One IPFE node of the IPFE Addresses table: its address and agent port, with their errors. */
function IpfeRow({
  slot,
  tableId,
  locked,
}: {
  slot: IpfeSlot;
  tableId: string;
  /** The Target Sets whose Active IPFE the slot is: its address is then read-only. */
  locked: number[] | undefined;
}) {
  const { register } = useFormContext<OptionsFormValues>();
  const addressError = useFieldError(`ipfe.${slot}.address`);
  const portError = useFieldError(`ipfe.${slot}.agentPort`);
  const addressId = `${tableId}-${slot}-address`;
  const portId = `${tableId}-${slot}-port`;
  return (
    <tr>
      <th scope="row">IPFE {slot}</th>
      <td>
        <input
          id={addressId}
          className="input"
          aria-label={`IPFE ${slot} address`}
          placeholder="not configured"
          readOnly={Boolean(locked)}
          aria-invalid={addressError ? true : undefined}
          aria-describedby={
            [addressError && `${addressId}-error`, locked && `${addressId}-locked`]
              .filter(Boolean)
              .join(' ') || undefined
          }
          {...register(`ipfe.${slot}.address`)}
        />
        <FieldMessage id={addressId} error={addressError} />
        {locked && (
          <p className="field-note" id={`${addressId}-locked`}>
            {MESSAGES.readOnly}: Target Set {locked.join(', ')} {locked.length === 1 ? 'is' : 'are'}{' '}
            served through this IPFE
          </p>
        )}
      </td>
      <td>
        <input
          id={portId}
          className="input input-narrow"
          type="number"
          aria-label={`IPFE ${slot} agent port`}
          aria-invalid={portError ? true : undefined}
          aria-describedby={portError ? `${portId}-error` : undefined}
          {...register(`ipfe.${slot}.agentPort`, num)}
        />
        <FieldMessage id={portId} error={portError} />
      </td>
      <td>IPFE {MATE_OF[slot]}</td>
    </tr>
  );
}

export function OptionsForm({
  options,
  etag,
  readOnly,
  lockedSlots,
  onReload,
}: {
  options: Options;
  etag: string | null;
  /** A viewer sees the values but no control that changes them. */
  readOnly: boolean;
  /** Slots that are the Active IPFE of a Target Set, with those Target Sets' numbers. */
  lockedSlots: Partial<Record<IpfeSlot, number[]>>;
  onReload: () => void;
}) {
  const form = useSchemaForm({ schema, defaultValues: toFormValues(options) });
  const update = useUpdateOptions();
  const { onSubmit, outcome, setOutcome } = useSave({
    form,
    etag,
    save: (data: Options, current) => update.mutateAsync({ data, etag: current }),
    place: placeOptionsIssue,
    what: 'The Options page',
    onSaved: (saved) => {
      form.reset(toFormValues(saved.data));
      return { kind: 'saved', message: savedAs('Options', saved), warnings: [] };
    },
  });
  const { register } = form;
  const tableId = useId();

  return (
    <Form form={form} onSubmit={onSubmit} label="IPFE options" className="entity-form">
      <SaveFeedback outcome={outcome} onReload={onReload} />
      <fieldset disabled={readOnly} className="plain">
        <Section title="IPFE Addresses">
          <table className="grid-table" aria-describedby={`${tableId}-note`}>
            <thead>
              <tr>
                <th scope="col">IPFE</th>
                <th scope="col">Address</th>
                <th scope="col">Agent port</th>
                <th scope="col">Mate</th>
              </tr>
            </thead>
            <tbody>
              {IPFE_SLOTS.map((slot) => (
                <IpfeRow key={slot} slot={slot} tableId={tableId} locked={lockedSlots[slot]} />
              ))}
            </tbody>
          </table>
          <p className="section-text" id={`${tableId}-note`}>
            Where each IPFE node&apos;s agent listens (IPv4 or IPv6). Leave the address empty for a
            node that is not configured. A1 and A2 are mates, as are B1 and B2: a node&apos;s mate
            takes over its Target Set addresses when it fails. Agent port: {PORT.min}–{PORT.max},
            default {AGENT_PORT_DEFAULT}.
          </p>
        </Section>

        <Section title="Inter-IPFE Synchronization">
          <div className="form-grid">
            <InputField
              label="Mate heartbeat port"
              type="number"
              required
              registration={register('mateHeartbeatPort', num)}
              help={`UDP port on which mates beacon each other. Range: ${PORT_RANGE}. Default: ${MATE_HEARTBEAT_PORT_DEFAULT}`}
            />
            <InputField
              label="Mate beacon interval (ms)"
              type="number"
              required
              registration={register('mateIntervalMs', num)}
              help={`Beacon period. Range: ${MATE_INTERVAL_MS.min}–${MATE_INTERVAL_MS.max}. Default: ${MATE_INTERVAL_MS.default}`}
            />
            <InputField
              label="Mate timeout (ms)"
              type="number"
              required
              registration={register('mateTimeoutMs', num)}
              help={`Silence after which the mate is dead and its addresses are taken over. Range: ${MATE_TIMEOUT_MS.min}–${MATE_TIMEOUT_MS.max}, at least 3 × the beacon interval. Default: ${MATE_TIMEOUT_MS.default}`}
            />
          </div>
        </Section>

        <Section title="Traffic Forwarding">
          <div className="form-grid">
            <SelectField
              label="TCP reject option"
              registration={register('tcpRejectOption')}
              options={TCP_REJECT_CHOICES}
              help={`What a new TCP connection gets when no server can take it. An IPv6 client gets the ICMPv6 equivalent of an ICMP choice. ${DATA_PATH_SUPPORT.tcpRejectOption} Default: ${choiceLabel(DEFAULTS.tcpRejectOption, TCP_REJECT_CHOICES)}`}
            />
            <SelectField
              label="SCTP reject option"
              registration={register('sctpRejectOption')}
              options={SCTP_REJECT_CHOICES}
              help={`What a new SCTP association (its INIT) gets when no server can take it; SCTP has no reset. ${DATA_PATH_SUPPORT.sctpRejectOption} Default: ${choiceLabel(DEFAULTS.sctpRejectOption, SCTP_REJECT_CHOICES)}`}
            />
            <InputField
              label="Forwarded ports"
              required
              registration={register('forwardedPorts')}
              help={`TCP ports every Target Set address accepts connections on, separated by commas. ${FORWARDED_PORTS.min}–${FORWARDED_PORTS.max} unique ports. Default: ${FORWARDED_PORTS.default.join(', ')} (Diameter)`}
            />
          </div>
        </Section>

        <Section title="Application Server Monitoring">
          <div className="form-grid">
            <RadioGroupField
              label="Monitoring protocol"
              registration={register('monitorProtocol')}
              options={MONITOR_CHOICES}
              help={`Heartbeat: servers send load heartbeats on the monitoring connection (needed by Least Load). TCP connect only: a server that accepts the connection is available. Disabled: every server is available. Default: ${choiceLabel(DEFAULTS.monitorProtocol, MONITOR_CHOICES)}`}
            />
            <InputField
              label="Monitoring port"
              type="number"
              required
              registration={register('monitoringPort', num)}
              help={`Where application servers listen for the monitoring connection. Range: ${PORT_RANGE}. Default: ${MONITORING_PORT_DEFAULT}`}
            />
            <InputField
              label="Connect timeout (s)"
              type="number"
              required
              registration={register('connectTimeoutS', num)}
              help={`No heartbeat (or no connect) for this long marks a server offline. Range: ${CONNECT_TIMEOUT_S.min}–${CONNECT_TIMEOUT_S.max}. Default: ${CONNECT_TIMEOUT_S.default}`}
            />
            <InputField
              label="Connect try interval (s)"
              type="number"
              required
              registration={register('connectTryIntervalS', num)}
              help={`How often a lost monitoring connection is retried. Range: ${CONNECT_TRY_INTERVAL_S.min}–${CONNECT_TRY_INTERVAL_S.max}. Default: ${CONNECT_TRY_INTERVAL_S.default}`}
            />
          </div>
        </Section>

        <Section title="Packet Counting">
          <div className="form-grid">
            <InputField
              label="Least Load threshold (new connections/s)"
              type="number"
              required
              registration={register('leastLoadThreshold', num)}
              help={`Below this rate on a Target Set, Least Load reverts to weighted round-robin. Range: ${LEAST_LOAD_THRESHOLD.min}–${LEAST_LOAD_THRESHOLD.max.toLocaleString('en-US')}. Default: ${LEAST_LOAD_THRESHOLD.default}`}
            />
            <InputField
              label="Imbalance threshold (%)"
              type="number"
              required
              registration={register('imbalanceThresholdPct', num)}
              help={`A server whose share of new connections deviates from its expected share by more than this raises "Out of Balance". Range: ${IMBALANCE_THRESHOLD_PCT.min}–${IMBALANCE_THRESHOLD_PCT.max}. Default: ${IMBALANCE_THRESHOLD_PCT.default}`}
            />
            <InputField
              label="Imbalance detection throughput minimum (packets/s)"
              type="number"
              required
              registration={register('imbalanceMinPps', num)}
              help={`Below this packet rate on a Target Set, no Out of Balance alarm is raised: too few packets say nothing of balance. ${DATA_PATH_SUPPORT.imbalanceMinPps} Range: ${IMBALANCE_MIN_PPS.min}–${count(IMBALANCE_MIN_PPS.max)}. Default: ${count(DEFAULTS.imbalanceMinPps)}`}
            />
            <CheckboxField
              label="Accounting"
              text="Enabled"
              registration={register('accounting')}
              help={`When off, packet and byte measurements stop. ${DATA_PATH_SUPPORT.accounting} Default: ${DEFAULTS.accounting ? 'enabled' : 'disabled'}`}
            />
          </div>
        </Section>

        <Section title="Global Packet Rate Limit">
          <div className="form-grid">
            <InputField
              label="Global packet rate limit (packets/s per port)"
              type="number"
              required
              registration={register('packetRateLimitPps', num)}
              help={`Packets each local port takes per second, counted per port; the packets above it are dropped. ${DATA_PATH_SUPPORT.packetRateLimitPps} Range: ${count(PACKET_RATE_LIMIT_PPS.min)}–${count(PACKET_RATE_LIMIT_PPS.max)}. Default: ${count(DEFAULTS.packetRateLimitPps)}`}
            />
          </div>
        </Section>

        <BgpSection />
      </fieldset>
      {!readOnly && (
        <div className="form-actions">
          <Button type="submit" variant="primary" disabled={update.isPending}>
            Apply
          </Button>
          <Button
            onClick={() => {
              form.reset();
              setOutcome(null);
            }}
          >
            Cancel
          </Button>
        </div>
      )}
    </Form>
  );
}
