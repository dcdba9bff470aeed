import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { structureFindings } from '../scripts/structure.ts';

/**
 * The house's shape (scripts/structure.ts): folders import only from their own or lower ones, no import circle, no
 * function over 60 lines in lib/control or functions/, no file over 400 lines in lib/control, lib/sim (the model)
 * under 4,500 lines.
 */
describe('the structure', () => {
  it('has no upward import, no circle, and nothing past its bounds', () => {
    expect(structureFindings(join(import.meta.dirname, '..')).map((f) => `${f.kind}: ${f.text}`)).toEqual([]);
  });

  it('finds an upward import, a circle and a long function in a tree that has them', () => {
    // GIVEN a small tree: the control law importing the model, two model files importing each other, and a
    // 61-line function in lib/control
    const root = mkdtempSync(join(tmpdir(), 'structure-'));
    try {
      mkdirSync(join(root, 'lib', 'control'), { recursive: true });
      mkdirSync(join(root, 'lib', 'sim'), { recursive: true });
      const body = Array.from({ length: 59 }, (_, i) => `  const v${i} = ${i};`).join('\n');
      writeFileSync(
        join(root, 'lib', 'control', 'law.ts'),
        `import { a } from '../sim/a.ts';\nexport function long() {\n${body}\n}\n`,
      );
      writeFileSync(join(root, 'lib', 'sim', 'a.ts'), "import { b } from './b.ts';\nexport const a = 1;\n");
      writeFileSync(join(root, 'lib', 'sim', 'b.ts'), "import { a } from './a.ts';\nexport const b = 2;\n");
      // WHEN / THEN
      expect(
        structureFindings(root)
          .map((f) => f.kind)
          .sort(),
      ).toEqual(['circle', 'long-function', 'upward-import']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
