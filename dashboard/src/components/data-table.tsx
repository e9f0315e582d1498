// One table for every list of the dashboard: sortable columns (within the rows it is given: the
// API's lists have no sort parameter), an optional selection column and a row's actions. Below
// 600 px the same rows render as cards: the primary column as the title, the others as labelled
// fields, the actions as buttons at the foot of each card, always visible.
import { type ReactNode, useState } from "react";
import { useNarrow } from "./use-media.js";

export interface Column<T> {
  key: string;
  header: string;
  cell(row: T): ReactNode;
  /** When present the column sorts by this value; null sorts last in both directions. */
  sortValue?(row: T): string | number | null;
  /** "num" right-aligns the column (and its header) in the table. */
  className?: string;
  /** The card's title below 600 px. */
  primary?: boolean;
  /** Shown in the table only (a card shows it in its title already, or it is a detail). */
  wideOnly?: boolean;
}

type SortDir = "asc" | "desc";
export interface Sort {
  key: string;
  dir: SortDir;
}

interface Selection<T> {
  isSelected(row: T): boolean;
  toggle(row: T): void;
  allSelected: boolean;
  toggleAll(): void;
  rowLabel(row: T): string;
  allLabel: string;
}

interface DataTableProps<T> {
  /** The table's accessible name (a visually hidden caption; the cards list's label). */
  label: string;
  rows: T[];
  columns: Column<T>[];
  rowKey(row: T): string;
  testId?: string;
  rowTestId?: string;
  actions?(row: T): ReactNode;
  /** A controlled sort (e.g. kept in the address); without it the table keeps its own. */
  sort?: Sort | null;
  onSortChange?(sort: Sort | null): void;
  selection?: Selection<T>;
  busy?: boolean;
}

/** The rows in the column's order; a stable sort, so equal values keep the API's order. */
function sortRows<T>(rows: T[], column: Column<T> | undefined, dir: SortDir): T[] {
  const value = column?.sortValue;
  if (!value) return rows;
  const sign = dir === "asc" ? 1 : -1;
  return rows
    .map((row, index) => ({ row, index, v: value(row) }))
    .sort((a, b) => {
      if (a.v === null || b.v === null) return a.v === b.v ? a.index - b.index : a.v === null ? 1 : -1;
      const order =
        typeof a.v === "number" && typeof b.v === "number"
          ? a.v - b.v
          : String(a.v).localeCompare(String(b.v), undefined, { sensitivity: "base", numeric: true });
      return order === 0 ? a.index - b.index : sign * order;
    })
    .map((x) => x.row);
}

export function DataTable<T>(props: DataTableProps<T>) {
  const narrow = useNarrow();
  const [ownSort, setOwnSort] = useState<Sort | null>(null);
  const sort = props.sort === undefined ? ownSort : props.sort;
  const setSort = (next: Sort | null) => {
    if (props.onSortChange) props.onSortChange(next);
    else setOwnSort(next);
  };
  const column = props.columns.find((c) => c.key === sort?.key && c.sortValue);
  const rows = column && sort ? sortRows(props.rows, column, sort.dir) : props.rows;
  const view = { ...props, rows, sort: column ? sort : null, setSort };
  return narrow ? <Cards {...view} /> : <Table {...view} />;
}

type ViewProps<T> = DataTableProps<T> & { sort: Sort | null; setSort(sort: Sort | null): void };

const nextSort = (key: string, sort: Sort | null): Sort | null =>
  sort?.key !== key ? { key, dir: "asc" } : sort.dir === "asc" ? { key, dir: "desc" } : null;

function Table<T>({
  label,
  rows,
  columns,
  rowKey,
  testId,
  rowTestId,
  actions,
  selection,
  busy,
  sort,
  setSort,
}: ViewProps<T>) {
  return (
    <table data-testid={testId} aria-busy={busy} className="data-table">
      <caption className="visually-hidden">{label}</caption>
      <thead>
        <tr>
          {selection ? (
            <th scope="col" className="select">
              <input
                type="checkbox"
                aria-label={selection.allLabel}
                checked={selection.allSelected}
                onChange={selection.toggleAll}
                data-testid="select-all"
              />
            </th>
          ) : null}
          {columns.map((c) => {
            const dir = sort?.key === c.key ? sort.dir : null;
            return (
              <th
                key={c.key}
                scope="col"
                className={
                  [c.className, c.wideOnly ? "wide-only" : ""].filter(Boolean).join(" ") || undefined
                }
                aria-sort={
                  c.sortValue
                    ? dir === "asc"
                      ? "ascending"
                      : dir === "desc"
                        ? "descending"
                        : "none"
                    : undefined
                }
              >
                {c.sortValue ? (
                  <button
                    type="button"
                    className="sort-button"
                    onClick={() => setSort(nextSort(c.key, sort))}
                    data-testid={`sort-${c.key}`}
                  >
                    {c.header}
                    <span aria-hidden="true" className="sort-mark">
                      {dir === "asc" ? "▲" : dir === "desc" ? "▼" : "↕"}
                    </span>
                  </button>
                ) : (
                  c.header
                )}
              </th>
            );
          })}
          {actions ? (
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr
            key={rowKey(row)}
            data-testid={rowTestId}
            aria-selected={selection ? selection.isSelected(row) : undefined}
          >
            {selection ? (
              <td className="select">
                <input
                  type="checkbox"
                  checked={selection.isSelected(row)}
                  onChange={() => selection.toggle(row)}
                  aria-label={selection.rowLabel(row)}
                />
              </td>
            ) : null}
            {columns.map((c) => (
              <td
                key={c.key}
                className={
                  [c.className, c.wideOnly ? "wide-only" : ""].filter(Boolean).join(" ") || undefined
                }
              >
                {c.cell(row)}
              </td>
            ))}
            {actions ? <td className="actions">{actions(row)}</td> : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Cards<T>({
  label,
  rows,
  columns,
  rowKey,
  testId,
  rowTestId,
  actions,
  selection,
  sort,
  setSort,
}: ViewProps<T>) {
  const sortable = columns.filter((c) => c.sortValue);
  const primary = columns.find((c) => c.primary) ?? columns[0];
  const rest = columns.filter((c) => c !== primary && !c.wideOnly);
  return (
    <>
      {sortable.length > 0 || selection ? (
        <div className="card-controls">
          {selection ? (
            <label className="check">
              <input
                type="checkbox"
                checked={selection.allSelected}
                onChange={selection.toggleAll}
                data-testid="select-all"
              />{" "}
              {selection.allLabel}
            </label>
          ) : null}
          {sortable.length > 0 ? (
            <label>
              Sort by
              <select
                value={sort ? `${sort.key}:${sort.dir}` : ""}
                onChange={(e) => {
                  const [key, dir] = e.target.value.split(":");
                  setSort(key && dir ? { key, dir: dir as SortDir } : null);
                }}
                data-testid="sort-select"
              >
                <option value="">As listed</option>
                {sortable.flatMap((c) => [
                  <option key={`${c.key}:asc`} value={`${c.key}:asc`}>
                    {c.header}, ascending
                  </option>,
                  <option key={`${c.key}:desc`} value={`${c.key}:desc`}>
                    {c.header}, descending
                  </option>,
                ])}
              </select>
            </label>
          ) : null}
        </div>
      ) : null}
      <ul className="data-cards" aria-label={label} data-testid={testId}>
        {rows.map((row) => {
          const selected = selection?.isSelected(row) ?? false;
          return (
            <li key={rowKey(row)} data-testid={rowTestId} className={selected ? "selected" : undefined}>
              <div className="card-title">
                {selection ? (
                  <input
                    type="checkbox"
                    checked={selected}
                    onChange={() => selection.toggle(row)}
                    aria-label={selection.rowLabel(row)}
                  />
                ) : null}
                <div>{primary ? primary.cell(row) : null}</div>
              </div>
              {rest.length > 0 ? (
                <dl className="card-fields">
                  {rest.map((c) => (
                    <div key={c.key}>
                      <dt>{c.header}</dt>
                      <dd>{c.cell(row)}</dd>
                    </div>
                  ))}
                </dl>
              ) : null}
              {actions ? <div className="actions card-actions">{actions(row)}</div> : null}
            </li>
          );
        })}
      </ul>
    </>
  );
}
