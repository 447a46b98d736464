import { statSync } from 'node:fs';
import { relative } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';

/** How often the watched paths are looked at again. */
const RECHECK_MS = 1000;

interface Watched {
  path: string;
  /** how the reason names it: `DATA_DIR` or `DATA_DIR/<file>`, never the absolute path */
  name: string;
  dev: number;
  ino: number;
}

function stat(path: string): { dev: number; ino: number } | null {
  try {
    const s = statSync(path);
    return { dev: s.dev, ino: s.ino };
  } catch {
    return null;
  }
}

/**
 * Notices when the data directory, or a file in it that the server keeps open or needs at the next
 * start, is removed or replaced under the running server. An open SQLite file that was unlinked
 * keeps taking writes that vanish at restart, so the server must stop accepting them. Each path's
 * identity (device and inode) is taken when the watch is made, right after storage was opened, and
 * compared again once a second by an unref'd timer: the request path and the stream writer only
 * read the verdict, never the disk. A problem stays until restart: the server cannot know that
 * what replaced its files is what it wrote.
 */
export class StorageWatch {
  private readonly watched: Watched[] = [];
  private broken: string | null = null;
  private readonly timer: NodeJS.Timeout;

  /**
   * @param dataDir DATA_DIR, always watched
   * @param files the files in it to watch (absolute paths); one missing already counts as removed
   */
  constructor(
    dataDir: string,
    files: readonly string[],
    private readonly log: FastifyBaseLogger,
    intervalMs = RECHECK_MS,
  ) {
    for (const path of [dataDir, ...files]) {
      const id = stat(path);
      const rel = relative(dataDir, path);
      const name = rel === '' ? 'DATA_DIR' : `DATA_DIR/${rel}`;
      // A path gone already is gone for good: the first check reports it.
      this.watched.push({ path, name, dev: id?.dev ?? -1, ino: id?.ino ?? -1 });
    }
    this.timer = setInterval(() => this.check(), intervalMs);
    // The watch never keeps the process alive on its own.
    this.timer.unref();
  }

  /** Why storage cannot be trusted, or null while it can: the last check's verdict, no disk access. */
  problem(): string | null {
    return this.broken;
  }

  /** Throws the problem, if there is one (before a write is committed and acknowledged). */
  assertWritable(): void {
    if (this.broken) throw new Error(this.broken);
  }

  /** Looks at the paths now; logs an error the first time one is gone or replaced. */
  check(): string | null {
    if (this.broken) return this.broken;
    for (const was of this.watched) {
      const is = stat(was.path);
      if (is && is.dev === was.dev && is.ino === was.ino) continue;
      // The directory comes first: once it is gone, its files are reported through it.
      this.broken = `storage unavailable: ${was.name} was ${is ? 'replaced' : 'removed'} while the server ran; restart it on intact storage`;
      this.log.error({ path: was.path }, this.broken);
      break;
    }
    return this.broken;
  }

  /** Stops the timer. */
  close(): void {
    clearInterval(this.timer);
  }
}
