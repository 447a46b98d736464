import { statSync } from 'node:fs';
import type { FastifyBaseLogger } from 'fastify';

/** How often the files are looked at again, at most, on the request path. */
const RECHECK_MS = 1000;

interface Identity {
  path: string;
  dev: number;
  ino: number;
}

function identity(path: string): Identity | null {
  try {
    const s = statSync(path);
    return { path, dev: s.dev, ino: s.ino };
  } catch {
    return null;
  }
}

/**
 * Notices when the data directory, or a database file in it, is removed or replaced under the
 * running server. An open SQLite file that was unlinked keeps taking writes that vanish at the
 * next start, so the server must stop accepting them: each path's identity (device and inode) is
 * taken at open and compared again at most once a second (a stat, a few microseconds), or at
 * once where a write is about to be acknowledged. A problem stays until restart: the server
 * cannot know that what replaced its files is what it wrote.
 */
export class StorageWatch {
  private readonly known: Identity[];
  private checkedAt = 0;
  private broken: string | null = null;

  constructor(
    paths: string[],
    private readonly log: FastifyBaseLogger,
  ) {
    this.known = paths.map(identity).filter((i): i is Identity => i !== null);
  }

  /** Why storage cannot be trusted, or null while it can. `fresh` looks at the files now. */
  problem(fresh = false): string | null {
    if (this.broken) return this.broken;
    const at = Date.now();
    if (!fresh && at - this.checkedAt < RECHECK_MS) return null;
    this.checkedAt = at;
    for (const was of this.known) {
      const is = identity(was.path);
      if (is && is.dev === was.dev && is.ino === was.ino) continue;
      this.broken = `storage unavailable: ${was.path} was ${is ? 'replaced' : 'removed'} while the server ran; restart it on intact storage`;
      this.log.error({ path: was.path }, this.broken);
      return this.broken;
    }
    return null;
  }

  /** Throws the problem, if there is one, looking at the files now (before acknowledging a write). */
  assertWritable(): void {
    const problem = this.problem(true);
    if (problem) throw new Error(problem);
  }
}
