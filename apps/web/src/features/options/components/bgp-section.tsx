import {
  ASN,
  BFD_INTERVAL_MS,
  BFD_MULTIPLIER,
  BGP_PEERS,
  type Options,
  type OptionsInput,
} from '@ipfe/schema';
import { useId } from 'react';
import { get, useFieldArray, useFormContext, useFormState, useWatch } from 'react-hook-form';
import { Button } from '@/components/ui/button';
import {
  CheckboxField,
  FieldMessage,
  InputField,
  messageOf,
  useFieldError,
} from '@/components/ui/form';
import { Section } from '@/components/ui/section';

/** The BGP section as the form holds it: off keeps what was typed, but sends `bgp: null`. */
export interface BgpFormValues {
  enabled: boolean;
  asn: number;
  peers: { address: string; asn: number }[];
  bfdIntervalMs: number;
  bfdMultiplier: number;
}

interface WithBgp {
  bgp: BgpFormValues;
}

export const newPeer = () => ({ address: '', asn: Number.NaN });

export function bgpFormValues(bgp: Options['bgp']): BgpFormValues {
  return bgp
    ? { enabled: true, ...bgp, peers: bgp.peers.map((p) => ({ ...p })) }
    : {
        enabled: false,
        asn: Number.NaN,
        peers: [newPeer()],
        bfdIntervalMs: BFD_INTERVAL_MS.default,
        bfdMultiplier: BFD_MULTIPLIER.default,
      };
}

export function bgpBody(values: BgpFormValues): OptionsInput['bgp'] {
  if (!values.enabled) return null;
  const { enabled, ...bgp } = values;
  void enabled;
  return { ...bgp, peers: bgp.peers.map((p) => ({ address: p.address.trim(), asn: p.asn })) };
}

const num = { valueAsNumber: true } as const;

/** One upstream router: its address and AS number, with their errors. */
function PeerRow({ index, onRemove }: { index: number; onRemove: (() => void) | null }) {
  const { register } = useFormContext<WithBgp>();
  const id = useId();
  const n = index + 1;
  const addressError = useFieldError(`bgp.peers.${index}.address`);
  const asnError = useFieldError(`bgp.peers.${index}.asn`);
  return (
    <tr>
      <th scope="row">{n}</th>
      <td>
        <input
          id={`${id}-address`}
          className="input"
          aria-label={`BGP peer ${n} address`}
          autoComplete="off"
          aria-invalid={addressError ? true : undefined}
          aria-describedby={addressError ? `${id}-address-error` : undefined}
          {...register(`bgp.peers.${index}.address`)}
        />
        <FieldMessage id={`${id}-address`} error={addressError} />
      </td>
      <td>
        <input
          id={`${id}-asn`}
          className="input input-narrow"
          type="number"
          aria-label={`BGP peer ${n} ASN`}
          aria-invalid={asnError ? true : undefined}
          aria-describedby={asnError ? `${id}-asn-error` : undefined}
          {...register(`bgp.peers.${index}.asn`, num)}
        />
        <FieldMessage id={`${id}-asn`} error={asnError} />
      </td>
      <td>
        {onRemove && (
          <Button onClick={onRemove} aria-label={`Remove BGP peer ${n}`}>
            Remove
          </Button>
        )}
      </td>
    </tr>
  );
}

/**
 * Options › BGP (decision 018): what the IPFEs announce active-active Target Sets with. Off: no
 * BGP, and no Target Set can be active-active.
 */
export function BgpSection() {
  const { control, register } = useFormContext<WithBgp>();
  const { fields, append, remove } = useFieldArray({ control, name: 'bgp.peers' });
  const enabled = useWatch({ control, name: 'bgp.enabled' });
  const { errors } = useFormState({ control, name: 'bgp.peers' });
  const listError = get(errors, 'bgp.peers') as { message?: unknown; root?: unknown } | undefined;
  const listMessage =
    typeof listError?.message === 'string' && listError.message
      ? (listError.message as string)
      : messageOf(listError?.root);
  const tableId = useId();
  return (
    <Section title="BGP">
      <div className="form-grid">
        <CheckboxField
          label="Announce over BGP"
          registration={register('bgp.enabled')}
          help="On: each IPFE of an active-active Target Set announces its addresses to the upstream routers, which spread flows over the IPFEs by ECMP. Off: no Target Set can be active-active. Default: off"
        />
      </div>
      {enabled && (
        <>
          <div className="form-grid">
            <InputField
              label="BGP ASN"
              type="number"
              required
              registration={register('bgp.asn', num)}
              help={`The IPFEs' own AS number, one for all of them. Range: ${ASN.min}–${ASN.max}`}
            />
          </div>
          <table className="grid-table" aria-describedby={`${tableId}-note`}>
            <caption className="visually-hidden">BGP peers</caption>
            <thead>
              <tr>
                <th scope="col">Peer</th>
                <th scope="col">Address</th>
                <th scope="col">ASN</th>
                <th scope="col">
                  <span className="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {fields.map((field, i) => (
                <PeerRow
                  key={field.id}
                  index={i}
                  onRemove={fields.length > BGP_PEERS.min ? () => remove(i) : null}
                />
              ))}
            </tbody>
          </table>
          <div className="section-buttons">
            <FieldMessage id={`${tableId}-list`} error={listMessage} />
            {fields.length < BGP_PEERS.max && (
              <Button onClick={() => append(newPeer())}>Add peer</Button>
            )}
          </div>
          <p className="section-text" id={`${tableId}-note`}>
            The upstream routers every IPFE peers with: {BGP_PEERS.min}–{BGP_PEERS.max}, each with
            its address and AS number.
          </p>
          <div className="form-grid">
            <InputField
              label="BFD interval (ms)"
              type="number"
              required
              registration={register('bgp.bfdIntervalMs', num)}
              help={`BFD packet interval. A router stops sending to a dead IPFE after interval × multiplier. Range: ${BFD_INTERVAL_MS.min}–${BFD_INTERVAL_MS.max}. Default: ${BFD_INTERVAL_MS.default}`}
            />
            <InputField
              label="BFD multiplier"
              type="number"
              required
              registration={register('bgp.bfdMultiplier', num)}
              help={`Missed BFD packets before a session is down. Range: ${BFD_MULTIPLIER.min}–${BFD_MULTIPLIER.max}. Default: ${BFD_MULTIPLIER.default} (${BFD_INTERVAL_MS.default} ms × ${BFD_MULTIPLIER.default} = ${BFD_INTERVAL_MS.default * BFD_MULTIPLIER.default} ms)`}
            />
          </div>
        </>
      )}
    </Section>
  );
}
