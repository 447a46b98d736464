import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where export files live: `DATA_DIR/exports`, an MP4 per completed export under its final name
 * (`<id>.mp4`), and while an attempt renders its partial output and scratch folder beside it.
 */
export function exportFiles(dataDir: string) {
  const dir = join(dataDir, 'exports');
  mkdirSync(dir, { recursive: true });
  return {
    dir,
    /** The completed MP4 of an export. */
    finalPath: (id: string) => join(dir, `${id}.mp4`),
    /** Removes an export's files: the MP4 and whatever an attempt left (partial output, scratch). */
    remove(id: string, keepFinal = false): void {
      let names: string[] = [];
      try {
        names = readdirSync(dir);
      } catch {
        return;
      }
      for (const name of names)
        if (name.startsWith(`${id}.`) && !(keepFinal && name === `${id}.mp4`))
          rmSync(join(dir, name), { recursive: true, force: true });
    },
  };
}
export type ExportFiles = ReturnType<typeof exportFiles>;
