import type { ImportFileFormat } from '@ipfe/schema';

/** The two layouts of an import, as the Import page names them. */
export const FORMAT_NAMES: Readonly<Record<ImportFileFormat, { label: string; detail: string }>> = {
  source: {
    label: "The source product's bulk file",
    detail: 'its own Bulk Export: IPFE Options and ListTsa records, by position, without a header',
  },
  named: {
    label: "Named-column CSV (this OAM's)",
    detail:
      'a header row per table: IpfeOption, IpfeXsiNetwork, IpfeAppServer, IpfePeerNodeGroup, IpfeListTsa',
  },
};
