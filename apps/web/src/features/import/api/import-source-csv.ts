import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { RevisionInfo } from '@ipfe/schema';
import { api } from '@/lib/api-client';

/** Commits the file as one revision, if the running revision is still the previewed one. */
export const importSourceCsv = ({ content, basedOn }: { content: string; basedOn: number }) =>
  api.postText<RevisionInfo>(`/api/import/source-csv?basedOn=${basedOn}`, content, 'text/csv');

export function useImportSourceCsv() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: importSourceCsv,
    // An import may change every part of the configuration.
    onSuccess: () => queryClient.invalidateQueries(),
  });
}
