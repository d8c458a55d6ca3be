import type { ReactNode } from 'react';
import {
  PORT,
  SNMP_AUTH_PROTOCOLS,
  SNMP_KEY_LENGTH,
  SNMP_PRIV_PROTOCOLS,
  SNMP_SECURITY_LEVELS,
  SNMP_TRAP_DESTINATIONS_MAX,
  SNMP_TRAP_PORT_DEFAULT,
  snmpTrapsInputSchema,
  type SnmpSecurityLevel,
  type SnmpTrapsInput,
} from '@ipfe/schema';
import { useFieldArray, useWatch, type UseFormReturn } from 'react-hook-form';
import { Button } from '@/components/ui/button';
import {
  Form,
  formSchema,
  InputField,
  SaveFeedback,
  SelectField,
  useSave,
  useSchemaForm,
} from '@/components/ui/form';
import { Section } from '@/components/ui/section';
import { useUpdateSnmpTraps, type SnmpTrapsView } from '../api/snmp-traps';

/** One destination as the form holds it: every field of both versions, secrets typed afresh. */
export interface DestinationValues {
  host: string;
  port: number;
  version: 'v2c' | 'v3';
  community: string;
  user: string;
  securityLevel: SnmpSecurityLevel;
  authProtocol: string;
  authKey: string;
  privProtocol: string;
  privKey: string;
  /** What the OAM keeps already: an empty secret box then keeps it. */
  stored: { community: boolean; authKey: boolean; privKey: boolean };
}

export interface SnmpTrapsFormValues {
  destinations: DestinationValues[];
}

const blank = (): DestinationValues => ({
  host: '',
  port: SNMP_TRAP_PORT_DEFAULT,
  version: 'v2c',
  community: '',
  user: '',
  securityLevel: 'authPriv',
  authProtocol: 'sha256',
  authKey: '',
  privProtocol: 'aes',
  privKey: '',
  stored: { community: false, authKey: false, privKey: false },
});

export function toFormValues(view: SnmpTrapsView): SnmpTrapsFormValues {
  return {
    destinations: view.destinations.map((d) =>
      d.version === 'v2c'
        ? {
            ...blank(),
            host: d.host,
            port: d.port,
            version: 'v2c',
            stored: { community: d.communitySet, authKey: false, privKey: false },
          }
        : {
            ...blank(),
            host: d.host,
            port: d.port,
            version: 'v3',
            user: d.user,
            securityLevel: d.securityLevel,
            authProtocol: d.authProtocol ?? 'sha256',
            privProtocol: d.privProtocol ?? 'aes',
            stored: { community: false, authKey: d.authKeySet, privKey: d.privKeySet },
          },
    ),
  };
}

/** Only the fields of the destination's version and security level; an empty secret is left out. */
export function toSnmpTrapsBody(values: SnmpTrapsFormValues): unknown {
  const secret = (text: string) => (text === '' ? undefined : text);
  return {
    destinations: values.destinations.map((d) => {
      const where = { host: d.host.trim(), port: d.port };
      if (d.version === 'v2c') return { ...where, version: 'v2c', community: secret(d.community) };
      const auth = d.securityLevel !== 'noAuthNoPriv';
      const priv = d.securityLevel === 'authPriv';
      return {
        ...where,
        version: 'v3',
        user: d.user.trim(),
        securityLevel: d.securityLevel,
        authProtocol: auth ? d.authProtocol : null,
        authKey: auth ? secret(d.authKey) : undefined,
        privProtocol: priv ? d.privProtocol : null,
        privKey: priv ? secret(d.privKey) : undefined,
      };
    }),
  };
}

const schema = formSchema(toSnmpTrapsBody, snmpTrapsInputSchema);

/** The API's paths are the form's, field for field. */
export const placeSnmpTrapsIssue = (path: string) =>
  /^destinations\.\d+\.\w+$/.test(path) ? path : null;

const num = { valueAsNumber: true } as const;
const choices = (values: readonly string[]) => values.map((value) => ({ value, label: value }));

function SecretField({
  form,
  name,
  label,
  stored,
  help,
}: {
  form: UseFormReturn<SnmpTrapsFormValues, unknown, SnmpTrapsInput>;
  name: `destinations.${number}.${'community' | 'authKey' | 'privKey'}`;
  label: ReactNode;
  stored: boolean;
  help: string;
}) {
  return (
    <InputField
      label={label}
      type="password"
      autoComplete="new-password"
      placeholder={stored ? 'set (leave empty to keep)' : 'not set'}
      required={!stored}
      registration={form.register(name)}
      help={stored ? `${help} Set: leave it empty to keep it.` : help}
    />
  );
}

function DestinationFields({
  form,
  index,
  onRemove,
}: {
  form: UseFormReturn<SnmpTrapsFormValues, unknown, SnmpTrapsInput>;
  index: number;
  onRemove: () => void;
}) {
  const { register } = form;
  const at = `destinations.${index}` as const;
  const [version, level, stored] = useWatch({
    control: form.control,
    name: [`${at}.version`, `${at}.securityLevel`, `${at}.stored`],
  });
  const n = index + 1;
  // The legend says which destination: the labels need not, but a screen reader's field list does.
  const named = (what: string) => (
    <>
      {what}
      <span className="visually-hidden">, destination {n}</span>
    </>
  );
  return (
    <fieldset className="plain trap-destination" aria-label={`Trap destination ${n}`}>
      <legend>Destination {n}</legend>
      <div className="form-grid">
        <InputField
          label={named('Address')}
          required
          registration={register(`${at}.host`)}
          help="The SNMP manager's IPv4 or IPv6 address."
        />
        <InputField
          label={named('UDP port')}
          type="number"
          required
          registration={register(`${at}.port`, num)}
          help={`Range: ${PORT.min}–${PORT.max}. Default: ${SNMP_TRAP_PORT_DEFAULT}`}
        />
        <SelectField
          label={named('SNMP version')}
          registration={register(`${at}.version`)}
          options={[
            { value: 'v2c', label: 'SNMPv2c (community)' },
            { value: 'v3', label: 'SNMPv3 (user)' },
          ]}
        />
        {version === 'v2c' ? (
          <SecretField
            form={form}
            name={`${at}.community`}
            label={named('Community')}
            stored={stored.community}
            help="1–64 printable characters."
          />
        ) : (
          <>
            <InputField
              label={named('User')}
              required
              registration={register(`${at}.user`)}
              help="The SNMPv3 user the manager knows the OAM by (1–32 characters)."
            />
            <SelectField
              label={named('Security level')}
              registration={register(`${at}.securityLevel`)}
              options={choices(SNMP_SECURITY_LEVELS)}
            />
            {level !== 'noAuthNoPriv' && (
              <>
                <SelectField
                  label={named('Auth protocol')}
                  registration={register(`${at}.authProtocol`)}
                  options={choices(SNMP_AUTH_PROTOCOLS)}
                />
                <SecretField
                  form={form}
                  name={`${at}.authKey`}
                  label={named('Auth key')}
                  stored={stored.authKey}
                  help={`Pass phrase, ${SNMP_KEY_LENGTH.min}–${SNMP_KEY_LENGTH.max} characters.`}
                />
              </>
            )}
            {level === 'authPriv' && (
              <>
                <SelectField
                  label={named('Privacy protocol')}
                  registration={register(`${at}.privProtocol`)}
                  options={choices(SNMP_PRIV_PROTOCOLS)}
                  help="AES; DES is not offered (the OAM's OpenSSL no longer provides it)."
                />
                <SecretField
                  form={form}
                  name={`${at}.privKey`}
                  label={named('Privacy key')}
                  stored={stored.privKey}
                  help={`Pass phrase, ${SNMP_KEY_LENGTH.min}–${SNMP_KEY_LENGTH.max} characters.`}
                />
              </>
            )}
          </>
        )}
      </div>
      <Button onClick={onRemove}>Remove destination {n}</Button>
    </fieldset>
  );
}

/**
 * IPFE › Configuration › Options › SNMP traps: where the OAM sends a trap for every alarm raised
 * and cleared. Admins change it; others see it. Saved apart from the options (no revision).
 */
export function SnmpTrapsForm({
  view,
  etag,
  readOnly,
  onReload,
}: {
  view: SnmpTrapsView;
  etag: string | null;
  readOnly: boolean;
  onReload: () => void;
}) {
  const form = useSchemaForm({
    schema,
    defaultValues: toFormValues(view),
    arrayFields: ['destinations'],
  });
  const { fields, append, remove } = useFieldArray({ control: form.control, name: 'destinations' });
  const update = useUpdateSnmpTraps();
  const { onSubmit, outcome, setOutcome } = useSave({
    form,
    etag,
    save: (data: SnmpTrapsInput, current) => update.mutateAsync({ data, etag: current }),
    place: placeSnmpTrapsIssue,
    what: 'The SNMP trap destinations',
    onSaved: (saved) => {
      form.reset(toFormValues(saved.data));
      const count = saved.data.destinations.length;
      return {
        kind: 'saved',
        message: `SNMP trap destinations saved: ${count === 0 ? 'none' : count}`,
        warnings: [],
      };
    },
  });

  return (
    <Form form={form} onSubmit={onSubmit} label="SNMP traps" className="entity-form">
      <Section title="SNMP Traps">
        <p className="section-text">
          The OAM sends a trap (IPFE-OAM-MIB, in <code>deploy/snmp</code>) for every alarm raised
          and cleared to each destination. An SNMPv3 receiver needs the OAM&apos;s engine ID:{' '}
          <code aria-label="SNMPv3 engine ID">{view.engineId}</code>. Communities and keys are never
          shown again once saved.
        </p>
        <SaveFeedback name="snmp-traps" outcome={outcome} onReload={onReload} />
        {readOnly && (
          <p className="page-note">Read-only: only an admin may change the trap destinations.</p>
        )}
        <fieldset disabled={readOnly} className="plain trap-destinations">
          {fields.length === 0 && <p className="section-text">No trap destinations.</p>}
          {fields.map((field, index) => (
            <DestinationFields
              key={field.id}
              form={form}
              index={index}
              onRemove={() => remove(index)}
            />
          ))}
          {!readOnly && fields.length < SNMP_TRAP_DESTINATIONS_MAX && (
            <Button onClick={() => append(blank())}>Add trap destination</Button>
          )}
        </fieldset>
      </Section>
      {!readOnly && (
        <div className="form-actions">
          <Button type="submit" variant="primary" disabled={update.isPending}>
            Save SNMP traps
          </Button>
          <Button
            onClick={() => {
              form.reset();
              setOutcome(null);
            }}
          >
            Revert SNMP traps
          </Button>
        </div>
      )}
    </Form>
  );
}
