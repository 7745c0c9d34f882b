// Every error code has exactly one row in docs/reference/errors.md, and every row is a real code.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ExtensionErrorCode, RpcError, RpcErrorCode } from '@weft/core';

// This file is packages/core/test/; the repository root is three levels up.
const DOC = fileURLToPath(new URL('../../../docs/reference/errors.md', import.meta.url));
const text = readFileSync(DOC, 'utf8');

interface Row {
  readonly code: string;
  readonly cells: readonly string[];
}

/** The table rows (`| \`CODE\` | … |`) of the section under `heading`, up to the next `## ` heading. */
function rowsOf(heading: string): Row[] {
  const lines = text.split(/\r?\n/);
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`${DOC} has no line "${heading}"`);
  const rows: Row[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('## ')) break;
    const match = /^\|\s*`([^`]+)`\s*\|(.*)\|\s*$/.exec(line);
    if (match === null) continue;
    rows.push({ code: match[1] as string, cells: (match[2] as string).split('|').map((c) => c.trim()) });
  }
  return rows;
}

/** Fails with the codes missing from the doc and the rows that name no code. */
function expectSameCodes(table: string, documented: readonly string[], actual: readonly string[]): void {
  const missing = actual.filter((c) => !documented.includes(c)).sort();
  const extra = documented.filter((c) => !actual.includes(c)).sort();
  const duplicated = documented.filter((c, i) => documented.indexOf(c) !== i).sort();
  expect(
    { missing, extra, duplicated },
    `${table} in docs/reference/errors.md: missing rows for [${missing.join(', ')}], ` +
      `rows for unknown codes [${extra.join(', ')}], duplicated rows [${duplicated.join(', ')}]`
  ).toEqual({ missing: [], extra: [], duplicated: [] });
}

describe('docs/reference/errors.md', () => {
  const extensionRows = rowsOf('## ExtensionError codes');
  const rpcRows = rowsOf('## RpcError codes');

  it('has a row for every ExtensionError code and no other', () => {
    expect(Object.values(ExtensionErrorCode).length).toBeGreaterThan(0);
    expectSameCodes(
      '## ExtensionError codes',
      extensionRows.map((r) => r.code),
      Object.values(ExtensionErrorCode)
    );
  });

  it('has a row for every RpcError code and no other', () => {
    expect(Object.values(RpcErrorCode).length).toBeGreaterThan(0);
    expectSameCodes(
      '## RpcError codes',
      rpcRows.map((r) => r.code),
      Object.values(RpcErrorCode)
    );
  });

  it('gives each RpcError code its Dubbo numeric code', () => {
    const codes: readonly string[] = Object.values(RpcErrorCode);
    expect(rpcRows.length).toBeGreaterThan(0);
    for (const { code, cells } of rpcRows) {
      if (!codes.includes(code)) continue; // an unknown code is reported by the test above
      const expected = new RpcError(code as RpcErrorCode, 'x').dubboCode;
      expect(cells[0], `Dubbo code of \`${code}\``).toBe(String(expected));
    }
  });

  it('says when each error happens and what to do, in every row', () => {
    for (const { code, cells } of extensionRows) {
      expect(cells, `\`${code}\``).toHaveLength(2);
      for (const cell of cells) expect(cell.length, `\`${code}\``).toBeGreaterThan(20);
    }
    for (const { code, cells } of rpcRows) {
      expect(cells, `\`${code}\``).toHaveLength(3);
      for (const cell of cells.slice(1)) expect(cell.length, `\`${code}\``).toBeGreaterThan(5);
    }
  });
});
