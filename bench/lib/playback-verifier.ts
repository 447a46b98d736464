/**
 * The verifier of the playback benchmark's http reader: a worker thread that checks each answer
 * (bench/lib/playback-answer.ts) while the reader's main thread takes the next one off the socket.
 * The worker loads this file (through tsx) and runs `verifierThread`.
 */
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { AnswerChecker } from './playback-answer.ts';
import { Checker, type Expect } from './playback-check.ts';
import { loadTruth } from './playback-truth.ts';

/**
 * Checks answers in a worker thread, so that the reader's main thread is free to take the next
 * answer off the socket meanwhile (as a browser's network and decoding are apart).
 */
export class Verifier {
  private readonly worker: Worker;
  private failure: Error | null = null;
  private readonly finishing = new Map<
    number,
    { ok: (r: { events: number; bytes: number }) => void; fail: (e: Error) => void }
  >();
  /** Resolves once the worker has loaded the Truth and can check answers. */
  readonly ready: Promise<void>;
  /**
   * Answer buffers the worker has handed back. Each answer is copied into memory of its own (to
   * move it to the worker); fresh memory of ~11 MB an answer costs page faults and frees that took
   * the reader as long as checking, so the same few buffers go back and forth instead.
   */
  private readonly spare: ArrayBuffer[] = [];

  constructor(expect: Expect, truthFile: string) {
    // The worker loads this TypeScript file through tsx's API (`--import tsx` does not reach workers).
    const self = JSON.stringify(import.meta.url);
    const api = JSON.stringify(import.meta.resolve('tsx/esm/api'));
    this.worker = new Worker(`import(${api}).then((tsx) => tsx.tsImport(${self}, ${self}));`, {
      eval: true,
      workerData: { role: VERIFY_ROLE, expect, truthFile },
    });
    let started!: () => void;
    let refused!: (e: Error) => void;
    this.ready = new Promise((ok, fail) => {
      started = ok;
      refused = fail;
    });
    this.worker.on('message', (m: VerifyReply) => {
      if (m.type === 'ready') return started();
      if (m.type === 'spare') return void this.spare.push(m.buffer);
      if (m.type === 'error') {
        this.failure ??= new Error(m.message);
        if (m.reader < 0) return refused(this.failure);
      }
      const f = this.finishing.get(m.reader);
      if (!f) return;
      this.finishing.delete(m.reader);
      if (m.type === 'error') f.fail(new Error(m.message));
      else f.ok({ events: m.events, bytes: m.bytes });
    });
    this.worker.on('error', (err) => {
      this.failure ??= err;
      refused(err);
      for (const f of this.finishing.values()) f.fail(err);
      this.finishing.clear();
    });
    this.worker.on('exit', (code) => refused(new Error(`the verifier thread exited (${code})`)));
  }

  /** A buffer for an answer of `bytes`, to be handed over by `post`. */
  alloc(bytes: number): Buffer {
    const i = this.spare.findIndex((b) => b.byteLength >= bytes);
    const ab = i >= 0 ? this.spare.splice(i, 1)[0]! : new ArrayBuffer(Math.max(bytes, SPARE_BYTES));
    return Buffer.from(ab, 0, bytes);
  }

  /** Hands an answer over (its memory moves to the worker); throws if an earlier one failed. */
  post(reader: number, body: Buffer, asked: number | undefined, next: number | null): void {
    if (this.failure) throw this.failure;
    if (body.byteOffset !== 0) throw new Error('an answer must start its buffer (see alloc)');
    const buffer = body.buffer as ArrayBuffer;
    const msg: VerifyRequest = { type: 'answer', reader, buffer, length: body.length, asked, next };
    this.worker.postMessage(msg, [buffer]);
  }

  /** Resolves once every answer of the reader is checked (and, when complete, the whole set). */
  finish(reader: number, complete: boolean): Promise<{ events: number; bytes: number }> {
    return new Promise((ok, fail) => {
      this.finishing.set(reader, { ok, fail });
      const msg: VerifyRequest = { type: 'finish', reader, complete };
      this.worker.postMessage(msg);
    });
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}

const VERIFY_ROLE = 'playback-verify';
/** The size of a new answer buffer: room for the largest answers (~11.4 MB of JSON at 8 MiB of payload). */
const SPARE_BYTES = 12 << 20;
type VerifyRequest =
  | {
      type: 'answer';
      reader: number;
      /** the answer is its first `length` bytes */
      buffer: ArrayBuffer;
      length: number;
      asked: number | undefined;
      next: number | null;
    }
  | { type: 'finish'; reader: number; complete: boolean };
type VerifyReply =
  | { type: 'ready' }
  /** an answer's buffer, checked, back for the next answer */
  | { type: 'spare'; buffer: ArrayBuffer }
  | { type: 'done'; reader: number; events: number; bytes: number }
  /** reader -1: the worker could not start */
  | { type: 'error'; reader: number; message: string };

/** The worker side: a Checker per reader; a reader's first error is reported, the rest ignored. */
function verifierThread(expect: Expect, truthFile: string): void {
  const reply = (m: VerifyReply) => parentPort!.postMessage(m);
  let answers: AnswerChecker;
  try {
    const truth = loadTruth(truthFile);
    if (truth.stream.length !== expect.maxSeq + 1)
      throw new Error(
        `${truthFile} holds seqs 1..${truth.stream.length - 1}, the recording 1..${expect.maxSeq}`,
      );
    answers = new AnswerChecker(truth);
  } catch (err) {
    reply({ type: 'error', reader: -1, message: (err as Error).message });
    return;
  }
  const checks = new Map<number, Checker>();
  const failed = new Set<number>();
  parentPort!.on('message', (m: VerifyRequest) => {
    try {
      handle(m);
    } finally {
      if (m.type === 'answer') parentPort!.postMessage({ type: 'spare', buffer: m.buffer }, [m.buffer]);
    }
  });
  const handle = (m: VerifyRequest) => {
    if (failed.has(m.reader)) {
      if (m.type === 'finish')
        reply({ type: 'error', reader: m.reader, message: 'the reader failed earlier' });
      return;
    }
    let check = checks.get(m.reader);
    if (!check) checks.set(m.reader, (check = new Checker(expect)));
    try {
      if (m.type === 'answer') answers.check(check, Buffer.from(m.buffer, 0, m.length), m.asked, m.next);
      else {
        if (m.complete) check.finish();
        reply({ type: 'done', reader: m.reader, events: check.events, bytes: check.bytes });
      }
    } catch (err) {
      failed.add(m.reader);
      reply({ type: 'error', reader: m.reader, message: (err as Error).message });
    }
  };
  reply({ type: 'ready' });
}

// The verifier thread of an http task.
if (!isMainThread && (workerData as { role?: string } | null)?.role === VERIFY_ROLE) {
  const d = workerData as { expect: Expect; truthFile: string };
  verifierThread(d.expect, d.truthFile);
}
