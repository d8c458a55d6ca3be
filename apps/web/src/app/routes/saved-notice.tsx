import { useLocation } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { NOTHING_TO_SAVE } from '@/lib/commits';

/** A message that a save left for the page it went on to ("saved as revision 4"). */
export interface SavedState {
  saved: string;
  warnings?: { path: string; message: string }[];
}

export function SavedNotice() {
  const location = useLocation();
  const state = location.state as SavedState | null;
  if (!state?.saved) return null;
  return (
    <Alert tone={state.saved === NOTHING_TO_SAVE ? 'info' : 'success'} title={state.saved}>
      {state.warnings && state.warnings.length > 0 && (
        <ul className="issue-list">
          {state.warnings.map((w) => (
            <li key={`${w.path}:${w.message}`}>Warning: {w.message}</li>
          ))}
        </ul>
      )}
    </Alert>
  );
}
