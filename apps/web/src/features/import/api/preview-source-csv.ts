import { useMutation } from '@tanstack/react-query';
import type { ImportFileFormat, SourceCsvPreview } from '@ipfe/schema';
import { api } from '@/lib/api-client';

export type { SourceCsvPreview };

/** What the operator asks of an import: the file's layout (none: as it shows) and the offer. */
export interface ImportAsk {
  format?: ImportFileFormat | undefined;
  createServers?: boolean | undefined;
}

/** The query of an import request: format and createServers when asked. */
export function importQuery({ format, createServers }: ImportAsk): string[] {
  return [
    ...(format ? [`format=${format}`] : []),
    ...(createServers ? ['createServers=true'] : []),
  ];
}

/**
 * What importing the file would change against the running revision; commits nothing. `since`: the
 * revision it was first previewed against, so that changes undoing others' later commits are marked.
 */
export const previewSourceCsv = (content: string, since?: number, ask: ImportAsk = {}) => {
  const query = [...(since === undefined ? [] : [`since=${since}`]), ...importQuery(ask)];
  return api.postText<SourceCsvPreview>(
    `/api/import/source-csv/preview${query.length > 0 ? `?${query.join('&')}` : ''}`,
    content,
    'text/csv',
  );
};

export const usePreviewSourceCsv = () =>
  useMutation({
    mutationFn: async ({
      content,
      since,
      ...ask
    }: { content: string; since?: number | undefined } & ImportAsk) =>
      (await previewSourceCsv(content, since, ask)).data,
  });
