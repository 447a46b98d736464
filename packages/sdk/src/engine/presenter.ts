/** Which tile the presenter layout shows large: one rule for the live page and the player. */

/** A video tile as the rule sees it. */
export interface PresenterTile {
  userId: string;
  kind: 'cam' | 'screen';
}

/**
 * The large tile of the presenter layout, by the rule the export follows
 * (packages/server/src/modules/exports/layout.ts): a screen share while it is on (the most
 * recently started one when several are), else the focus's camera (else their screen tile), else
 * the first tile. `screenSince` tells when a screen tile's share started (any increasing number),
 * or null while it is off; `focus` null (or someone without a tile) means the first tile's person.
 */
export function presenterTile<T extends PresenterTile>(
  tiles: readonly T[],
  focus: string | null,
  screenSince: (tile: T) => number | null,
): T | undefined {
  let main: T | undefined;
  let latest = -Infinity;
  for (const t of tiles) {
    if (t.kind !== 'screen') continue;
    const since = screenSince(t);
    if (since !== null && since > latest) {
      latest = since;
      main = t;
    }
  }
  if (main) return main;
  const theirs = tiles.filter((t) => t.userId === focus);
  return theirs.find((t) => t.kind === 'cam') ?? theirs[0] ?? tiles[0];
}
