import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useMemo } from 'react';
import { Link, useSearchParams } from 'react-router';
import { IPFE_SLOTS, type TargetSet } from '@ipfe/schema';
import { Alert } from '@/components/ui/alert';
import { ExportLinks } from '@/components/ui/export-links';
import { Loading } from '@/components/ui/page';
import type { Versioned } from '@/lib/api-client';
import {
  getAppServersQueryOptions,
  useAppServers,
} from '@/features/app-servers/api/get-app-servers';
import { getOptionsQueryOptions, useOptions } from '@/features/options/api/get-options';
import { useCreateTargetSet } from '@/features/target-sets/api/create-target-set';
import { useDeleteTargetSet } from '@/features/target-sets/api/delete-target-set';
import { useTargetSet } from '@/features/target-sets/api/get-target-set';
import {
  getTargetSetsQueryOptions,
  useTargetSets,
  type TargetSetView,
} from '@/features/target-sets/api/get-target-sets';
import { useUpdateTargetSet } from '@/features/target-sets/api/update-target-set';
import type { Family, TargetSetContext } from '@/features/target-sets/components/form-model';
import { insertRefusal } from '@/features/target-sets/components/target-set-numbers';
import { TargetSetsView } from '@/features/target-sets/components/target-sets-view';
import {
  getXsiNetworksQueryOptions,
  useXsiNetworks,
} from '@/features/xsi-networks/api/get-xsi-networks';
import { collectionRoutes, type CollectionFormProps } from './collection';

// The form (and its change preview) is fetched when Insert or Edit first opens, not with the View.
const TargetSetForm = lazy(() =>
  import('./other-pages').then((m) => ({
    default: m.TargetSetForm,
  })),
);

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

/** The View's table, or, with no Target Set yet, what to configure first. */
function TargetSetsList({
  items,
  selected,
  onSelect,
  editor,
}: {
  items: TargetSetView[];
  selected: number | null;
  onSelect?: (number: number) => void;
  editor: boolean;
}) {
  const options = useOptions();
  const networks = useXsiNetworks();
  const servers = useAppServers();
  if (items.length === 0) {
    return (
      <Prerequisites
        editor={editor}
        ipfe={IPFE_SLOTS.some((s) => options.data?.data.ipfe[s])}
        networks={(networks.data?.length ?? 0) > 0}
        servers={(servers.data?.length ?? 0) > 0}
      />
    );
  }
  return (
    <>
      <TargetSetsView targetSets={items} selected={selected} onSelect={onSelect} />
      <p className="page-note">
        Owner (live): the IPFE serving the primary address now. Active bindings: the servers able to
        take new connections, out of all listed. Both come from the IPFE agents; — means no agent
        reports them.
      </p>
    </>
  );
}

/**
 * The rest of the configuration that the form checks against, once it is all loaded. Others change
 * it while the form is open: it is read again when the operator comes back to the window, and
 * `refresh` reads it afresh (at a save the checks refuse).
 */
function useTargetSetContext(editing: number | null) {
  const onFocus = { refetchOnWindowFocus: true } as const;
  const options = useQuery({ ...getOptionsQueryOptions(), ...onFocus });
  const networks = useQuery({ ...getXsiNetworksQueryOptions(), ...onFocus });
  const servers = useQuery({ ...getAppServersQueryOptions(), ...onFocus });
  const targetSets = useQuery({ ...getTargetSetsQueryOptions(), ...onFocus });
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
  const queryClient = useQueryClient();
  const refresh = useCallback(async (): Promise<TargetSetContext> => {
    const now = { staleTime: 0 } as const;
    const [current, xsiNetworks, appServers, all] = await Promise.all([
      queryClient.fetchQuery({ ...getOptionsQueryOptions(), ...now }),
      queryClient.fetchQuery({ ...getXsiNetworksQueryOptions(), ...now }),
      queryClient.fetchQuery({ ...getAppServersQueryOptions(), ...now }),
      queryClient.fetchQuery({ ...getTargetSetsQueryOptions(), ...now }),
    ]);
    return { options: current.data, xsiNetworks, appServers, targetSets: all, editing };
  }, [queryClient, editing]);
  return { context, error, refresh };
}

/**
 * Insert (of the family of the button that opened the page) or Edit, once the configuration the
 * form checks against is loaded.
 */
function TargetSetFormPage({
  entity,
  ...props
}: CollectionFormProps<TargetSetView, TargetSet, Versioned<TargetSetView>, number>) {
  const [params] = useSearchParams();
  const { context, error, refresh } = useTargetSetContext(entity?.number ?? null);
  const family: Family = entity?.family ?? (params.get('family') === 'ipv6' ? 'ipv6' : 'ipv4');
  return (
    <>
      {error && <Alert tone="error" title={error.message} />}
      {context ? (
        <Suspense fallback={<Loading what="the Target Set form" />}>
          <TargetSetForm
            key={family}
            context={context}
            refreshContext={refresh}
            family={family}
            targetSet={entity}
            {...props}
          />
        </Suspense>
      ) : (
        !error && <Loading what={entity ? `Target Set ${entity.number}` : 'the configuration'} />
      )}
    </>
  );
}

const routes = collectionRoutes({
  trail: ['IPFE', 'Configuration'],
  path: '/target-sets',
  title: 'Target Sets',
  listTitle: 'Target Sets [View]',
  noun: 'Target Set',
  nounInSentence: 'Target Set',
  keyOf: (targetSet: TargetSetView) => targetSet.number,
  keyFromPath: Number,
  insert: [
    { to: '/target-sets/insert?family=ipv4', label: 'Insert IPv4' },
    { to: '/target-sets/insert?family=ipv6', label: 'Insert IPv6' },
  ],
  insertRefusal: (items: TargetSetView[]) => insertRefusal(items),
  toolbarExtra: <ExportLinks />,
  useList: () => {
    // What the empty View's checklist reads, loaded with the list.
    useOptions();
    useXsiNetworks();
    useAppServers();
    return useTargetSets({ live: true });
  },
  useOne: useTargetSet,
  useCreate: useCreateTargetSet,
  useUpdate: () => {
    const update = useUpdateTargetSet();
    return {
      mutateAsync: ({ key, ...change }) => update.mutateAsync({ number: key, ...change }),
    };
  },
  useDelete: useDeleteTargetSet,
  renderList: (props) => <TargetSetsList {...props} />,
  renderForm: (props) => <TargetSetFormPage {...props} />,
});

export const TargetSetsRoute = routes.ListRoute;
export const TargetSetInsertRoute = routes.InsertRoute;
export const TargetSetEditRoute = routes.EditRoute;
