// Every page but the first ones (the login, the Target Sets View), as one chunk: the build's
// JavaScript compresses best in few files, and once one of them opens the rest are at hand.
export { AlarmsRoute } from './alarms';
export { AppServerEditRoute, AppServerInsertRoute, AppServersRoute } from './app-servers';
export { AuditRoute } from './audit';
export { ImportRoute } from './import';
export { MeasurementsRoute } from './measurements';
export { OptionsRoute } from './options';
export {
  PeerNodeGroupEditRoute,
  PeerNodeGroupInsertRoute,
  PeerNodeGroupsRoute,
} from './peer-node-groups';
export { RevisionDiffRoute, RevisionRoute, RevisionsRoute } from './revisions';
export { StatusRoute } from './status';
export { ApiTokensRoute, UserEditRoute, UserInsertRoute, UsersRoute } from './users';
export { XsiNetworkEditRoute, XsiNetworkInsertRoute, XsiNetworksRoute } from './xsi-networks';
export { TargetSetForm } from '@/features/target-sets/components/target-set-form';
