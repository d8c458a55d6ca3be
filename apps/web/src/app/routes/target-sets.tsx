import { useMemo, useState } from 'react';
import { Link, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';
import { IPFE_SLOTS, type TargetSet } from '@ipfe/schema';
import { Alert } from '@/components/ui/alert';
import { ListToolbar } from '@/components/ui/list-toolbar';
import { Loading, Page } from '@/components/ui/page';
import type { SaveOutcome } from '@/components/ui/form';
import { useAppServers } from '@/features/app-servers/api/get-app-servers';
import { useOptions } from '@/features/options/api/get-options';
import { useCreateTargetSet } from '@/features/target-sets/api/create-target-set';
import { useDeleteTargetSet } from '@/features/target-sets/api/delete-target-set';
import { useTargetSet } from '@/features/target-sets/api/get-target-set';
import { useTargetSets, type TargetSetView } from '@/features/target-sets/api/get-target-sets';
import { useUpdateTargetSet } from '@/features/target-sets/api/update-target-set';
import type { Family, TargetSetContext } from '@/features/target-sets/components/form-model';
import { TargetSetForm } from '@/features/target-sets/components/target-set-form';
import { TargetSetsView } from '@/features/target-sets/components/target-sets-view';
import { useXsiNetworks } from '@/features/xsi-networks/api/get-xsi-networks';
import { canEdit, useUser } from '@/lib/auth';
import { useShownVersion } from '@/lib/shown-version';
import { SavedNotice, type SavedState } from './saved-notice';

const TRAIL = ['IPFE', 'Configuration'];

function ExportLink() {
  return (
    <a className="btn btn-secondary" href="/api/export" download>
      Export
    </a>
  );
}

function Prerequisites({
  ipfe,
  networks,
  servers,
  editor,
}: {
  ipfe: boolean;
  networks: boolean;
  servers: boolean;
  editor: boolean;
}) {
  const step = (done: boolean, text: string, to: string, where: string) => (
    <li className={done ? 'done' : 'todo'}>
      <span aria-hidden="true">{done ? '✔' : '○'} </span>
      <span className="visually-hidden">{done ? 'Done: ' : 'To do: '}</span>
      {text} — <Link to={to}>{where}</Link>
    </li>
  );
  return (
    <div className="empty">
      <p>
        <strong>No Target Set yet.</strong> A Target Set maps one public address (the Target Set
        Address) to a list of application servers.{' '}
        {editor ? 'Before inserting one, configure:' : 'An operator configures, in this order:'}
      </p>
      <ol className="checklist">
        {step(
          ipfe,
          'the IPFE node addresses (at least IPFE A1)',
          '/options',
          'IPFE › Configuration › Options',
        )}
        {step(
          networks,
          'an XSI network that holds the public and server addresses',
          '/xsi-networks',
          'Network › XSI Networks',
        )}
        {step(servers, 'the application servers', '/app-servers', 'Network › Application Servers')}
      </ol>
      {editor && <p>Then use Insert IPv4 or Insert IPv6 above.</p>}
    </div>
  );
}

export function TargetSetsRoute() {
  const targetSets = useTargetSets({ live: true });
  const options = useOptions();
  const networks = useXsiNetworks();
  const servers = useAppServers();
  const { data: user } = useUser();
  const remove = useDeleteTargetSet();
  const [selected, setSelected] = useState<number | null>(null);
  const editor = canEdit(user);
  const current = targetSets.data?.find((t) => t.number === selected) ?? null;

  return (
    <Page
      trail={TRAIL}
      title="Target Sets [View]"
      toolbar={
        editor ? (
          <ListToolbar
            noun="Target Set"
            selected={
              current && { key: String(current.number), label: `Target Set ${current.number}` }
            }
            insert={[
              { to: '/target-sets/insert?family=ipv4', label: 'Insert IPv4' },
              { to: '/target-sets/insert?family=ipv6', label: 'Insert IPv6' },
            ]}
            editPath={(n) => `/target-sets/${n}/edit`}
            onDelete={async (n) => {
              await remove.mutateAsync(Number(n));
              setSelected(null);
            }}
            extra={<ExportLink />}
          />
        ) : (
          <div className="toolbar">
            <ExportLink />
          </div>
        )
      }
    >
      <SavedNotice />
      {targetSets.isError && <Alert tone="error" title={targetSets.error.message} />}
      {!targetSets.data ? (
        !targetSets.isError && <Loading what="Target Sets" />
      ) : targetSets.data.length === 0 ? (
        <Prerequisites
          editor={editor}
          ipfe={IPFE_SLOTS.some((s) => options.data?.data.ipfe[s])}
          networks={(networks.data?.length ?? 0) > 0}
          servers={(servers.data?.length ?? 0) > 0}
        />
      ) : (
        <>
          <TargetSetsView
            targetSets={targetSets.data}
            selected={selected}
            onSelect={editor ? setSelected : undefined}
          />
          <p className="page-note">
            Owner (live): the IPFE serving the primary address now. Active bindings: the servers
            able to take new connections, out of all listed. Both come from the IPFE agents; — means
            no agent reports them.
          </p>
        </>
      )}
    </Page>
  );
}

/** The rest of the configuration that the form checks against, once it is all loaded. */
function useTargetSetContext(editing: number | null) {
  const options = useOptions();
  const networks = useXsiNetworks();
  const servers = useAppServers();
  const targetSets = useTargetSets();
  const queries = [options, networks, servers, targetSets];
  const error = queries.find((q) => q.isError)?.error ?? null;
  const context = useMemo<TargetSetContext | null>(() => {
    if (!options.data || !networks.data || !servers.data || !targetSets.data) return null;
    return {
      options: options.data.data,
      xsiNetworks: networks.data,
      appServers: servers.data,
      targetSets: targetSets.data,
      editing,
    };
  }, [options.data, networks.data, servers.data, targetSets.data, editing]);
  return { context, error };
}

const toView = (outcome: SaveOutcome | null) =>
  outcome?.kind === 'saved'
    ? ({ saved: outcome.message, warnings: outcome.warnings } satisfies SavedState)
    : null;

export function TargetSetInsertRoute() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const family: Family = params.get('family') === 'ipv6' ? 'ipv6' : 'ipv4';
  const create = useCreateTargetSet();
  const { context, error } = useTargetSetContext(null);
  return (
    <Page trail={TRAIL} title="Target Sets [Insert]">
      {error && <Alert tone="error" title={error.message} />}
      {context ? (
        <TargetSetForm
          key={family}
          context={context}
          family={family}
          targetSet={null}
          save={async (body: TargetSet) => create.mutateAsync(body)}
          onDone={(outcome) => void navigate('/target-sets', { state: toView(outcome) })}
          onInserted={(number, outcome) =>
            void navigate(`/target-sets/${number}/edit`, {
              replace: true,
              state: { outcome },
            })
          }
          onReload={() => undefined}
        />
      ) : (
        !error && <Loading what="the configuration" />
      )}
    </Page>
  );
}

export function TargetSetEditRoute() {
  const params = useParams();
  const number = Number(params.number);
  const navigate = useNavigate();
  const location = useLocation();
  const targetSet = useTargetSet(number);
  const update = useUpdateTargetSet();
  const { context, error } = useTargetSetContext(number);
  const [version, setVersion] = useState(0);
  const shown = useShownVersion(targetSet.data?.etag, version);
  const carried = (location.state as { outcome?: SaveOutcome } | null)?.outcome ?? null;
  const failure = targetSet.error ?? error;
  const entity: TargetSetView | undefined = targetSet.data?.data;
  return (
    <Page trail={TRAIL} title="Target Sets [Edit]">
      {failure && <Alert tone="error" title={failure.message} />}
      {entity && context ? (
        <TargetSetForm
          key={version}
          context={context}
          family={entity.family}
          targetSet={entity}
          initialOutcome={version === 0 ? carried : null}
          save={async (body: TargetSet) => {
            const saved = await update.mutateAsync({ number, data: body, etag: shown.etag() });
            shown.saved(saved.etag);
            return saved;
          }}
          onDone={(outcome) => void navigate('/target-sets', { state: toView(outcome) })}
          onInserted={() => undefined}
          onReload={() => void targetSet.refetch().then(() => setVersion((v) => v + 1))}
        />
      ) : (
        !failure && <Loading what={`Target Set ${number}`} />
      )}
    </Page>
  );
}
