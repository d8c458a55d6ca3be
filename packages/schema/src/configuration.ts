import { z } from 'zod';
import { optionsSchema } from './options.ts';
import { appServerSchema, peerNodeGroupSchema, xsiNetworkSchema } from './network.ts';
import { targetSetSchema } from './target-set.ts';
import { checkConfiguration } from './rules.ts';

/** The whole configuration as stored: every entity, without the fields derived from others. */
export const configurationShape = z.strictObject({
  options: optionsSchema.prefault({}),
  xsiNetworks: z.array(xsiNetworkSchema).default([]),
  appServers: z.array(appServerSchema).default([]),
  peerNodeGroups: z.array(peerNodeGroupSchema).default([]),
  targetSets: z.array(targetSetSchema).default([]),
});

export type Configuration = z.output<typeof configurationShape>;

/** The shape plus every cross-entity rule (errors only; warnings never refuse a configuration). */
export const configurationSchema = configurationShape.superRefine((config, ctx) => {
  for (const issue of checkConfiguration(config)) {
    if (issue.severity !== 'error') continue;
    ctx.addIssue({ code: 'custom', path: issue.path.split('.'), message: issue.message });
  }
});

export function emptyConfiguration(): Configuration {
  return configurationShape.parse({});
}
