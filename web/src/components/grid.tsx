import { useVirtualizer } from '@tanstack/react-virtual';
import { type ReactNode, useRef } from 'react';

export interface Column<R> {
  key: string;
  title: string;
  width?: string;
  render: (row: R) => ReactNode;
}

interface Props<R> {
  columns: readonly Column<R>[];
  rows: readonly R[];
  rowKey: (row: R, index: number) => string;
  rowClass?: (row: R) => string;
  height?: string;
  label: string;
  empty?: ReactNode;
}

const ROW_HEIGHT = 32;

/**
 * A virtualised grid: only the rows in view are in the DOM (TanStack Virtual), so a list of
 * thousands of pipelines or result rows scrolls as fast as a list of ten.
 */
export function Grid<R>({ columns, rows, rowKey, rowClass, height = '28rem', label, empty }: Props<R>) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  const template = columns.map((c) => c.width ?? 'minmax(8rem, 1fr)').join(' ');
  return (
    <div className="grid" role="table" aria-label={label} aria-rowcount={rows.length}>
      <div className="grid-row grid-head" role="row" style={{ gridTemplateColumns: template }}>
        {columns.map((c) => (
          <div role="columnheader" key={c.key}>
            {c.title}
          </div>
        ))}
      </div>
      <div className="grid-body" ref={scroller} style={{ maxHeight: height }}>
        {rows.length === 0 && <div className="grid-empty">{empty ?? 'No rows'}</div>}
        <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
          {virtual.getVirtualItems().map((item) => {
            const row = rows[item.index] as R;
            return (
              <div
                role="row"
                key={rowKey(row, item.index)}
                className={`grid-row ${rowClass?.(row) ?? ''}`}
                style={{ gridTemplateColumns: template, transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}
              >
                {columns.map((c) => (
                  <div role="cell" key={c.key}>
                    {c.render(row)}
                  </div>
                ))}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

/** Columns for rows of JSON objects (query results, a view's changes): one per member of the first rows. */
export function columnsOf(rows: readonly Record<string, unknown>[], limit = 50): Column<Record<string, unknown>>[] {
  const keys = new Set<string>();
  for (const r of rows.slice(0, limit)) for (const k of Object.keys(r)) keys.add(k);
  return [...keys].map((k) => ({ key: k, title: k, render: (r) => cellText(r[k]) }));
}

export const cellText = (v: unknown): string =>
  v === null || v === undefined ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v);
