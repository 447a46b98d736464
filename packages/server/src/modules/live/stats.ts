import type { PacerStats } from './pacer.js';

/**
 * The live statistics (the hub's, shown by metrics and the benchmarks). Kept apart from the
 * socket adapter, which fills its part of them: the hub never knows what carries a connection.
 */

/** What the adapter counts for the hub's statistics. */
export interface SocketStats extends PacerStats {
  pauses: number;
  /** messages sent (recorded messages and control signals), and their bytes */
  delivered: number;
  deliveredBytes: number;
}

/** The hub's statistics: the adapter's, and the messages published (and their payload bytes). */
export interface LiveStats extends SocketStats {
  published: number;
  publishedBytes: number;
  /** messages of reduced layers relayed (not recorded), and their payload bytes */
  relayed: number;
  relayedBytes: number;
}

export function liveStats(): LiveStats {
  return {
    dropped: 0,
    pauses: 0,
    delivered: 0,
    deliveredBytes: 0,
    published: 0,
    publishedBytes: 0,
    relayed: 0,
    relayedBytes: 0,
    layerSwitches: 0,
    keyframeSkips: 0,
  };
}
