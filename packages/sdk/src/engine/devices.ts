/** The cameras and microphones a person can pick from, and how loud a microphone is. */

/** One camera or microphone as offered in a picker. */
export interface DeviceOption {
  id: string;
  /** the browser's name for it; a numbered one until the page may use the devices */
  label: string;
}

/** The cameras and microphones present. */
export interface DeviceLists {
  cam: DeviceOption[];
  mic: DeviceOption[];
}

/**
 * Lists the cameras and microphones. Browsers name them (and give stable ids) only once the page
 * has been allowed one of them; before that they are numbered.
 */
export async function listDevices(): Promise<DeviceLists> {
  const all = (await navigator.mediaDevices?.enumerateDevices?.()) ?? [];
  const of = (kind: MediaDeviceKind, word: string): DeviceOption[] =>
    all
      .filter((d) => d.kind === kind && d.deviceId)
      .map((d, i) => ({ id: d.deviceId, label: d.label || `${word} ${i + 1}` }));
  return { cam: of('videoinput', 'Camera'), mic: of('audioinput', 'Microphone') };
}

/**
 * How loud a microphone track is, from a Web Audio analyser. Its AudioContext may start suspended
 * (browsers let sound start only after a click or a key): `resume()` it from one.
 */
export class LevelMeter {
  private readonly ctx: AudioContext;
  private readonly analyser: AnalyserNode;
  private readonly samples: Float32Array<ArrayBuffer>;
  private readonly source: MediaStreamAudioSourceNode;

  constructor(track: MediaStreamTrack) {
    this.ctx = new AudioContext();
    this.analyser = this.ctx.createAnalyser();
    this.analyser.fftSize = 1024;
    this.samples = new Float32Array(this.analyser.fftSize);
    this.source = this.ctx.createMediaStreamSource(new MediaStream([track]));
    // Analysed only: nothing is connected to the speakers, so one's own voice is not played back.
    this.source.connect(this.analyser);
    this.resume();
  }

  /** Lets the analysis run (call it from a click or key press as well). */
  resume(): void {
    if (this.ctx.state === 'suspended') void this.ctx.resume().catch(() => undefined);
  }

  /** The level now, 0..1: the loudness (RMS) over the last ~20 ms, scaled so that speech fills most of it. */
  level(): number {
    this.analyser.getFloatTimeDomainData(this.samples);
    let sum = 0;
    for (const v of this.samples) sum += v * v;
    const rms = Math.sqrt(sum / this.samples.length);
    // Speech is around 0.05-0.2 RMS: a square root spreads it over the meter.
    return Math.min(1, Math.sqrt(rms * 4));
  }

  close(): void {
    this.source.disconnect();
    void this.ctx.close().catch(() => undefined);
  }
}
