/**
 * The client side of one WebSocket for the fan-out load generator, in two implementations:
 *
 * - `wsLink`: the `ws` package's client. Every received message is assembled into one Buffer.
 * - `rawLink`: a minimal RFC 6455 client over a plain TCP socket that reads into one shared
 *   buffer (net's `onread`: no allocation, no stream machinery per read), parses frames as they
 *   stream in and hands over only the first bytes of each message and its last byte, never
 *   copying the payload. It answers pings and closes cleanly; it sends unfragmented frames with a
 *   zero masking key. The server cannot tell the two apart. On this 2-core machine the generator
 *   shares the CPU with the server under test, so its cost per received frame matters.
 *
 * Both call `onMessage(head, isBinary, lastByte, length)` once per complete message, where `head`
 * holds at least the first `HEAD_BYTES` bytes (fewer when the message is shorter) and is only
 * valid during the call.
 */
import { createHash, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { WebSocket } from 'ws';

/** Bytes of each received message handed to `onMessage`. */
export const HEAD_BYTES = 320;

export type Transport = 'raw' | 'ws';

export type OnMessage = (head: Buffer, isBinary: boolean, lastByte: number, length: number) => void;

/** One open WebSocket. */
export interface Link {
  /** sends one message: binary, or text (the bytes must be UTF-8) */
  send(data: Buffer, binary: boolean): void;
  readonly isOpen: boolean;
  /** bytes queued in this process, not yet handed to the kernel */
  readonly bufferedAmount: number;
  /** closes with 1000 and resolves once the socket is closed (terminating it after `timeoutMs`) */
  close(timeoutMs: number): Promise<void>;
}

/** Opens a link; rejects with the HTTP status when the upgrade is refused. */
export function openLink(transport: Transport, url: string, onMessage: OnMessage): Promise<Link> {
  return transport === 'ws' ? wsLink(url, onMessage) : rawLink(url, onMessage);
}

function zeroMask(mask: Buffer): void {
  // A zero masking key is a valid key and lets `ws` skip masking (and copying) on this side;
  // the server still runs its unmasking pass over every byte.
  mask.fill(0);
}

function wsLink(url: string, onMessage: OnMessage): Promise<Link> {
  return new Promise((resolveLink, reject) => {
    const ws = new WebSocket(url, {
      perMessageDeflate: false,
      maxPayload: 64 * 1024 * 1024,
      skipUTF8Validation: true,
      generateMask: zeroMask,
    });
    let opened = false;
    ws.on('unexpected-response', (_req, res) => {
      ws.terminate();
      reject(new Error(`upgrade refused with ${res.statusCode}`));
    });
    ws.on('error', (err) => {
      if (!opened) reject(err);
    });
    ws.on('message', (data: Buffer, isBinary: boolean) =>
      onMessage(data, isBinary, data.length ? data[data.length - 1]! : -1, data.length),
    );
    ws.on('open', () => {
      opened = true;
      resolveLink({
        send: (data, binary) => ws.send(data, { binary }),
        get isOpen() {
          return ws.readyState === WebSocket.OPEN;
        },
        get bufferedAmount() {
          return ws.bufferedAmount;
        },
        close: (timeoutMs) =>
          new Promise<void>((done) => {
            if (ws.readyState === WebSocket.CLOSED) return done();
            const t = setTimeout(() => {
              ws.terminate();
              done();
            }, timeoutMs);
            ws.once('close', () => {
              clearTimeout(t);
              done();
            });
            ws.close(1000);
          }),
      });
    });
  });
}

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const OP_CONT = 0x0;
const OP_TEXT = 0x1;
const OP_BINARY = 0x2;
const OP_CLOSE = 0x8;
const OP_PING = 0x9;
const OP_PONG = 0xa;

/** A client frame header: FIN, opcode, mask bit, length, zero masking key. */
function clientHeader(opcode: number, length: number): Buffer {
  const ext = length < 126 ? 0 : length < 65536 ? 2 : 8;
  const h = Buffer.alloc(2 + ext + 4); // the masking key stays 0
  h[0] = 0x80 | opcode;
  if (ext === 0) h[1] = 0x80 | length;
  else if (ext === 2) {
    h[1] = 0x80 | 126;
    h.writeUInt16BE(length, 2);
  } else {
    h[1] = 0x80 | 127;
    h.writeBigUInt64BE(BigInt(length), 2);
  }
  return h;
}

/**
 * One read buffer for every raw link: libuv reads into it (net's `onread`) and the parser is done
 * with the bytes before the next read, so nothing is allocated per read.
 */
const READ_BUFFER = Buffer.alloc(1024 * 1024);

function rawLink(url: string, onMessage: OnMessage): Promise<Link> {
  const u = new URL(url);
  const key = randomBytes(16).toString('base64');
  const accept = createHash('sha1')
    .update(key + GUID)
    .digest('base64');
  return new Promise((resolveLink, reject) => {
    let link: RawLink | null = null;
    let response = '';
    const socket = connect({
      host: u.hostname,
      port: Number(u.port),
      noDelay: true,
      onread: {
        buffer: READ_BUFFER,
        callback: (nread: number, buf: Uint8Array): boolean => {
          const chunk = Buffer.from(buf.buffer, buf.byteOffset, nread);
          if (link) {
            link.feed(chunk);
            return true;
          }
          // The handshake answer: headers up to the blank line, perhaps followed by frames.
          response += chunk.toString('latin1');
          const end = response.indexOf('\r\n\r\n');
          if (end < 0) return true;
          const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);
          const accepted = new RegExp(`^sec-websocket-accept: *${accept.replace(/[+/=]/g, '\\$&')} *$`, 'im');
          if (status !== 101 || !accepted.test(response.slice(0, end))) {
            socket.destroy();
            reject(new Error(`upgrade refused with ${status || response.slice(0, 40)}`));
            return false;
          }
          link = new RawLink(socket, onMessage);
          resolveLink(link);
          const rest = Buffer.from(response.slice(end + 4), 'latin1');
          if (rest.length) link.feed(rest);
          return true;
        },
      },
    });
    socket.on('error', (err) => {
      if (!link) reject(err);
    });
    socket.on('close', () => {
      if (!link) reject(new Error('closed during the handshake'));
    });
    socket.write(
      `GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
        `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${key}\r\n\r\n`,
    );
  });
}

/** Parses server frames in place as chunks arrive (see the file comment). */
class RawLink implements Link {
  private open = true;
  /** this side sent the close frame: the server's answer needs none */
  private closing = false;
  private closed: Promise<void>;
  // the frame being read
  private hdr = Buffer.alloc(14);
  private hdrLen = 0;
  private remaining = 0; // payload bytes still to come in the current frame
  private inPayload = false;
  private opcode = 0;
  private fin = false;
  // the message being assembled (data frames) and the control frame being read
  private msgOpcode = 0;
  private msgLength = 0;
  private head = Buffer.alloc(HEAD_BYTES);
  private headLen = 0;
  private lastByte = -1;
  private ctrl = Buffer.alloc(125);
  private ctrlLen = 0;

  constructor(
    private readonly socket: Socket,
    private readonly onMessage: OnMessage,
  ) {
    this.closed = new Promise((done) => socket.once('close', () => done()));
    socket.on('close', () => (this.open = false));
    socket.on('error', () => {});
  }

  get isOpen(): boolean {
    return this.open;
  }

  get bufferedAmount(): number {
    return this.socket.writableLength;
  }

  send(data: Buffer, binary: boolean): void {
    if (!this.open) return;
    this.write(binary ? OP_BINARY : OP_TEXT, data);
  }

  private write(opcode: number, data: Buffer): void {
    this.socket.cork();
    this.socket.write(clientHeader(opcode, data.length));
    if (data.length) this.socket.write(data);
    this.socket.uncork();
  }

  async close(timeoutMs: number): Promise<void> {
    if (this.open) {
      this.closing = true;
      const code = Buffer.alloc(2);
      code.writeUInt16BE(1000);
      this.write(OP_CLOSE, code);
      const t = setTimeout(() => this.socket.destroy(), timeoutMs);
      await this.closed;
      clearTimeout(t);
    }
  }

  /** Parses the next bytes read from the socket (valid only during the call). */
  feed(chunk: Buffer): void {
    let pos = 0;
    const n = chunk.length;
    while (pos < n) {
      if (!this.inPayload) {
        // Header: 2 bytes, then 0, 2 or 8 bytes of length (server frames are never masked).
        this.hdr[this.hdrLen++] = chunk[pos++]!;
        if (this.hdrLen < 2) continue;
        const len7 = this.hdr[1]! & 0x7f;
        const need = 2 + (len7 === 126 ? 2 : len7 === 127 ? 8 : 0) + (this.hdr[1]! & 0x80 ? 4 : 0);
        if (this.hdrLen < need) continue;
        if (this.hdr[1]! & 0x80) {
          this.socket.destroy(new Error('masked server frame'));
          return;
        }
        this.fin = (this.hdr[0]! & 0x80) !== 0;
        this.opcode = this.hdr[0]! & 0x0f;
        this.remaining =
          len7 === 126 ? this.hdr.readUInt16BE(2) : len7 === 127 ? Number(this.hdr.readBigUInt64BE(2)) : len7;
        this.hdrLen = 0;
        this.inPayload = true;
        if (this.opcode !== OP_CONT && this.opcode < OP_CLOSE) {
          this.msgOpcode = this.opcode;
          this.msgLength = 0;
          this.headLen = 0;
          this.lastByte = -1;
        }
        this.ctrlLen = 0;
        if (this.remaining === 0) this.endFrame();
        continue;
      }
      const take = Math.min(this.remaining, n - pos);
      if (this.opcode >= OP_CLOSE) {
        chunk.copy(this.ctrl, this.ctrlLen, pos, pos + take);
        this.ctrlLen += take;
      } else {
        if (this.headLen < HEAD_BYTES) {
          const k = Math.min(HEAD_BYTES - this.headLen, take);
          chunk.copy(this.head, this.headLen, pos, pos + k);
          this.headLen += k;
        }
        this.msgLength += take;
        this.lastByte = chunk[pos + take - 1]!;
      }
      pos += take;
      this.remaining -= take;
      if (this.remaining === 0) this.endFrame();
    }
  }

  private endFrame(): void {
    this.inPayload = false;
    const op = this.opcode;
    if (op === OP_PING) this.write(OP_PONG, Buffer.from(this.ctrl.subarray(0, this.ctrlLen)));
    else if (op === OP_CLOSE) {
      if (this.open && !this.closing)
        this.write(OP_CLOSE, Buffer.from(this.ctrl.subarray(0, Math.min(2, this.ctrlLen))));
      this.closing = true;
      this.socket.end();
    } else if (op !== OP_PONG && this.fin)
      this.onMessage(
        this.head.subarray(0, this.headLen),
        this.msgOpcode === OP_BINARY,
        this.lastByte,
        this.msgLength,
      );
  }
}
