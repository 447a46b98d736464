import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { BlobStore } from '../../blobs/store.js';

/**
 * Where export files live. Renders work in `DATA_DIR/exports` (ffmpeg needs a seekable file): an
 * attempt's partial output and scratch folder. A completed MP4 is an object `exports/<id>.mp4` of
 * the blob store: on local disk that is `DATA_DIR/exports/<id>.mp4` (the output is renamed into
 * place, as it always was); in a bucket it is uploaded and the local file removed, so that any
 * process serves any download.
 */
export function exportFiles(dataDir: string, blobs: BlobStore) {
  const dir = join(dataDir, 'exports');
  mkdirSync(dir, { recursive: true });
  const key = (id: string) => `exports/${id}.mp4`;
  /** Removes what attempts of an export left on this disk (partial output, scratch; the MP4 unless kept). */
  const removeLocal = (id: string, keepFinal: boolean): void => {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names)
      if (name.startsWith(`${id}.`) && !(keepFinal && name === `${id}.mp4`))
        rmSync(join(dir, name), { recursive: true, force: true });
  };
  return {
    dir,
    /** Stores a finished render as the export's MP4: all of it, under its final name, or nothing. */
    async store(id: string, rendered: string): Promise<void> {
      if (blobs.kind === 'disk') renameSync(rendered, join(dir, `${id}.mp4`));
      else {
        await blobs.putFile(key(id), rendered);
        rmSync(rendered, { force: true });
      }
    },
    /** The stored MP4's size, or undefined when there is none. */
    size: (id: string): Promise<number | undefined> => blobs.size(key(id)),
    /** The stored MP4, or an inclusive byte range of it. */
    open: (id: string, range?: { start: number; end: number }): Promise<Readable> =>
      blobs.stream(key(id), range),
    /** A short-lived URL of the stored MP4 in the bucket; null on local disk. */
    presign: (id: string, ttlSeconds: number, filename: string): Promise<string | null> =>
      blobs.presign(key(id), ttlSeconds, filename),
    /**
     * What attempts left on this disk: each partial output (`<id>.<attempt>.part`) and scratch
     * folder (`<id>.<attempt>.work`), by export and attempt.
     */
    attemptFiles(): Array<{ id: string; attempt: number; name: string }> {
      let names: string[] = [];
      try {
        names = readdirSync(dir);
      } catch {
        return [];
      }
      return names.flatMap((name) => {
        const m = /^(.+)\.(\d+)\.(part|work)$/.exec(name);
        return m ? [{ id: m[1]!, attempt: Number(m[2]), name }] : [];
      });
    },
    /** Removes one file or folder that `attemptFiles` listed. */
    removeAttemptFile(name: string): void {
      rmSync(join(dir, name), { recursive: true, force: true });
    },
    /** Removes what an attempt left on this disk, keeping a stored MP4 (a new attempt starts). */
    clean(id: string): void {
      removeLocal(id, true);
    },
    /** Removes an export's files: the stored MP4 and whatever an attempt left. */
    async remove(id: string): Promise<void> {
      removeLocal(id, false);
      await blobs.delete([key(id)]);
    },
  };
}
export type ExportFiles = ReturnType<typeof exportFiles>;
