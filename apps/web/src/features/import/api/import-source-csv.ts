import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { RevisionInfo } from '@ipfe/schema';
import { api } from '@/lib/api-client';
import { importQuery, type ImportAsk } from './preview-source-csv';

/**
 * Commits the file as one revision (with the offered servers when asked), if the running
 * revision is still the previewed one.
 */
export const importSourceCsv = ({
  content,
  basedOn,
  ...ask
}: { content: string; basedOn: number } & ImportAsk) =>
  api.postText<RevisionInfo>(
    `/api/import/source-csv?${[`basedOn=${basedOn}`, ...importQuery(ask)].join('&')}`,
    content,
    'text/csv',
  );

export function useImportSourceCsv() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: importSourceCsv,
    // An import may change every part of the configuration.
    onSuccess: () => queryClient.invalidateQueries(),
  });
}
