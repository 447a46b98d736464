/**
 * The microphone's AudioWorklet processor, served as `/sdk/mic-worklet.js` (its own module: a
 * worklet is loaded by URL, never from the page's bundle). It runs on the audio thread and hands
 * the page mono blocks of about 20 ms (960 samples at 48 kHz), with the frame number of their first
 * sample, through its port.
 */

/** What the audio thread's global scope has; the DOM library does not declare it. */
declare const sampleRate: number;
declare const currentFrame: number;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}
declare function registerProcessor(name: string, ctor: new () => AudioWorkletProcessor): void;

/** Samples per block handed on: 20 ms at 48 kHz, the length of one Opus frame. */
const BLOCK = Math.round(sampleRate / 50);

class MicProcessor extends AudioWorkletProcessor {
  private block = new Float32Array(BLOCK);
  private filled = 0;
  private first = 0;

  process(inputs: Float32Array[][]): boolean {
    const channels = inputs[0] ?? [];
    const n = channels[0]?.length ?? 0;
    for (let i = 0; i < n; i++) {
      if (this.filled === 0) this.first = currentFrame + i;
      let sum = 0;
      for (const c of channels) sum += c[i]!;
      this.block[this.filled++] = sum / channels.length;
      if (this.filled === BLOCK) {
        this.port.postMessage({ samples: this.block, frame: this.first, sampleRate }, [this.block.buffer]);
        this.block = new Float32Array(BLOCK);
        this.filled = 0;
      }
    }
    // Keep running while the page keeps the node, even between inputs.
    return true;
  }
}

registerProcessor('vss-mic', MicProcessor);
