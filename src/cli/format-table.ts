/**
 * @module
 * Plain-text tables: columns padded to their widest cell, no trailing spaces.
 */

/** A column of {@link formatTable}. */
export interface TableColumn {
  header: string;
  /** Numbers read best right-aligned. @default "left" */
  align?: "left" | "right";
}

/** The table's lines: a header row, then one row per entry. Cells must be single lines. */
export function formatTable(columns: readonly TableColumn[], rows: readonly (readonly string[])[]): string[] {
  const widths = columns.map((column, index) => Math.max(column.header.length, ...rows.map((row) => (row[index] ?? "").length)));
  const line = (cells: readonly string[]) =>
    columns
      .map((column, index) => {
        const cell = cells[index] ?? "";
        if (index === columns.length - 1 && column.align !== "right") return cell;
        return column.align === "right" ? cell.padStart(widths[index]!) : cell.padEnd(widths[index]!);
      })
      .join("  ")
      .trimEnd();
  return [line(columns.map((column) => column.header)), ...rows.map(line)];
}
