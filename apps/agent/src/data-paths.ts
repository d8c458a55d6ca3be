import { DATA_PATHS, type DataPath } from '@ipfe/schema';

export { DATA_PATHS, type DataPath };

/** What sets the data paths apart, where the flags, the process and the agent ask it. */
export interface DataPathTraits {
  /** Commands the path needs on the machine (it also needs root); none for user space. */
  readonly tools: readonly string[];
  /** Whether it needs --manage-addresses DEV (the interface it forwards on). */
  readonly needsDevice: boolean;
  /** Whether it leaves state in the kernel (nft table, addresses) that outlives the process. */
  readonly kernelState: boolean;
  /** Whether its connections can be shared with the mate through conntrackd (--sync-conntrack). */
  readonly conntrackSync: boolean;
  /** Whether it serves active-active TSAs (its netdev chain catches the announced TSA; BGP). */
  readonly activeActive: boolean;
}

export const DATA_PATH_TRAITS: Readonly<Record<DataPath, DataPathTraits>> = {
  userspace: {
    tools: [],
    needsDevice: false,
    kernelState: false,
    conntrackSync: false,
    activeActive: false,
  },
  kernel: {
    tools: ['nft', 'conntrack'],
    needsDevice: false,
    kernelState: true,
    conntrackSync: true,
    activeActive: false,
  },
  direct: {
    tools: ['nft'],
    needsDevice: true,
    kernelState: true,
    conntrackSync: false,
    activeActive: true,
  },
};
