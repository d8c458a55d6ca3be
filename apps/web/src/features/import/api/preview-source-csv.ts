import { useMutation } from '@tanstack/react-query';
import type { SourceCsvPreview } from '@ipfe/schema';
import { api } from '@/lib/api-client';

export type { SourceCsvPreview };

/**
 * What importing the file would change against the running revision; commits nothing. `since`: the
 * revision it was first previewed against, so that changes undoing others' later commits are marked.
 */
export const previewSourceCsv = (content: string, since?: number) =>
  api.postText<SourceCsvPreview>(
    `/api/import/source-csv/preview${since === undefined ? '' : `?since=${since}`}`,
    content,
    'text/csv',
  );

export const usePreviewSourceCsv = () =>
  useMutation({
    mutationFn: async ({ content, since }: { content: string; since?: number }) =>
      (await previewSourceCsv(content, since)).data,
  });
