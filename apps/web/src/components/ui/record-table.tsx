import type { ReactNode } from 'react';

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  className?: string;
}

/**
 * A list of records, one per row. With `onSelect`, the first column holds a radio button per row,
 * as the source GUI selects the row that Edit and Delete act on.
 */
export function RecordTable<T>({
  caption,
  columns,
  rows,
  rowKey,
  rowLabel,
  selected,
  onSelect,
  empty,
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  rowLabel: (row: T) => string;
  selected?: string | null;
  onSelect?: (key: string) => void;
  empty: ReactNode;
}) {
  if (rows.length === 0) return <div className="empty">{empty}</div>;
  return (
    <div className="table-scroll">
      <table className="data-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {onSelect && (
              <th scope="col" className="col-select">
                <span className="visually-hidden">Select</span>
              </th>
            )}
            {columns.map((c) => (
              <th scope="col" key={c.header} className={c.className}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const key = rowKey(row);
            const isSelected = selected === key;
            return (
              <tr
                key={key}
                className={isSelected ? 'selected' : undefined}
                onClick={onSelect ? () => onSelect(key) : undefined}
              >
                {onSelect && (
                  <td className="col-select">
                    <input
                      type="radio"
                      name={caption}
                      aria-label={`Select ${rowLabel(row)}`}
                      checked={isSelected}
                      onChange={() => onSelect(key)}
                    />
                  </td>
                )}
                {columns.map((c) => (
                  <td key={c.header} className={c.className}>
                    {c.cell(row)}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
