import {
  closeSync,
  copyFileSync,
  createReadStream,
  fdatasyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { BlobNotFound, type BlobStore } from './store.js';

/**
 * Objects as files under a folder (DATA_DIR on the embedded default): the key is the path, so
 * `exports/<id>.mp4` and `segments/<session>/<n>.seg` are where the server has always kept them. A
 * file is stored under a temporary name, synced and renamed into place, so a reader sees all of an
 * object or none of it.
 */
export function diskBlobStore(root: string): BlobStore {
  const base = resolve(root);
  const pathOf = (key: string): string => {
    const path = resolve(base, key);
    // A key is a relative path below the folder, never a way out of it.
    if (!path.startsWith(base + sep)) throw new Error(`bad object key ${JSON.stringify(key)}`);
    return path;
  };
  const missing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';
  /** Fills a temporary file beside the object's path, syncs it and renames it into place. */
  const install = (key: string, fill: (tmp: string) => void): void => {
    const to = pathOf(key);
    mkdirSync(dirname(to), { recursive: true });
    const tmp = `${to}.${process.pid}.tmp`;
    fill(tmp);
    const fd = openSync(tmp, 'r+');
    try {
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, to);
  };
  return {
    kind: 'disk',
    async putFile(key, from) {
      if (resolve(from) === pathOf(key)) return;
      install(key, (tmp) => copyFileSync(from, tmp));
    },
    async put(key, body) {
      install(key, (tmp) => writeFileSync(tmp, body));
    },
    async size(key) {
      try {
        return statSync(pathOf(key)).size;
      } catch (err) {
        if (missing(err)) return undefined;
        throw err;
      }
    },
    async read(key, start, end) {
      let fd: number;
      try {
        fd = openSync(pathOf(key), 'r');
      } catch (err) {
        if (missing(err)) throw new BlobNotFound(key);
        throw err;
      }
      try {
        const buf = Buffer.allocUnsafe(end - start);
        let got = 0;
        while (got < buf.length) {
          const n = readSync(fd, buf, got, buf.length - got, start + got);
          if (n === 0) break;
          got += n;
        }
        return buf.subarray(0, got);
      } finally {
        closeSync(fd);
      }
    },
    async stream(key, range) {
      const path = pathOf(key);
      try {
        statSync(path);
      } catch (err) {
        if (missing(err)) throw new BlobNotFound(key);
        throw err;
      }
      return range ? createReadStream(path, { start: range.start, end: range.end }) : createReadStream(path);
    },
    async presign() {
      return null;
    },
    async delete(keys) {
      for (const key of keys) rmSync(pathOf(key), { force: true });
    },
    async deletePrefix(prefix) {
      const keys = await this.list(prefix);
      await this.delete(keys);
      return keys.length;
    },
    async list(prefix) {
      // The folder the prefix names (or lies in), then the keys in it that start with it.
      const dir = prefix.endsWith('/') ? join(base, prefix) : dirname(join(base, prefix));
      let names: string[];
      try {
        names = readdirSync(dir, { recursive: true }) as string[];
      } catch (err) {
        if (missing(err)) return [];
        throw err;
      }
      return names
        .map((n) => relative(base, join(dir, n)).split(sep).join('/'))
        .filter((k) => k.startsWith(prefix) && !k.endsWith('.tmp') && statSync(join(base, k)).isFile())
        .sort();
    },
    async close() {},
  };
}
