import { useMutation } from '@tanstack/react-query';
import type { SourceCsvPreview } from '@ipfe/schema';
import { api } from '@/lib/api-client';

export type { SourceCsvPreview };

/** What importing the file would change against the running revision; commits nothing. */
export const previewSourceCsv = (content: string) =>
  api.postText<SourceCsvPreview>('/api/import/source-csv/preview', content, 'text/csv');

export const usePreviewSourceCsv = () =>
  useMutation({ mutationFn: async (content: string) => (await previewSourceCsv(content)).data });
