/**
 * The playhead: recording time (ms since 1970) that advances at `speed` while playing.
 *
 * Why an anchor and a time source instead of counting ticks: timers are late and irregular, so the
 * playhead is computed from a reference moment. When audio plays, that moment is read from the
 * AudioContext's own clock, so that audio scheduled at `audioTime(ts)` and pictures drawn at
 * `now() >= ts` follow one clock and cannot drift apart.
 */
export class PlayClock {
  private anchorTs = 0;
  private anchorAt = 0;
  private speedNow = 1;
  private running = false;
  private source: () => number = () => performance.now() / 1000;
  private audio: AudioContext | null = null;

  /** Current playhead, ms since 1970. */
  now(): number {
    if (!this.running) return this.anchorTs;
    return this.anchorTs + (this.source() - this.anchorAt) * 1000 * this.speedNow;
  }

  get playing(): boolean {
    return this.running;
  }

  get speed(): number {
    return this.speedNow;
  }

  /** Uses this AudioContext's clock while it runs (set before play). */
  useAudio(ctx: AudioContext | null): void {
    this.reanchor(() => (this.audio = ctx));
  }

  play(): void {
    this.reanchor(() => (this.running = true));
  }

  pause(): void {
    this.reanchor(() => (this.running = false));
  }

  /** Moves the playhead; keeps playing or paused. */
  seek(ts: number): void {
    this.reanchor(() => undefined);
    this.anchorTs = ts;
  }

  setSpeed(speed: number): void {
    this.reanchor(() => (this.speedNow = speed));
  }

  /**
   * The AudioContext time at which recording time `ts` is reached, or null when the playhead
   * does not follow the audio clock (paused, or no running audio).
   */
  audioTime(ts: number): number | null {
    if (!this.running || !this.audio || this.source !== this.audioSource) return null;
    return this.anchorAt + (ts - this.anchorTs) / 1000 / this.speedNow;
  }

  private readonly audioSource = () => this.audio?.currentTime ?? performance.now() / 1000;

  /** Freezes the playhead where it is, applies `change`, and restarts counting from there. */
  private reanchor(change: () => unknown): void {
    const ts = this.now();
    change();
    this.source =
      this.audio && this.audio.state === 'running' ? this.audioSource : () => performance.now() / 1000;
    this.anchorTs = ts;
    this.anchorAt = this.source();
  }
}
